#!/usr/bin/env python3
"""One-token start-up of several builds side by side (used for the before/after table in
README, Performance): rounds of interleaved runs, CPU (user+sys) and minor page faults
from wait4, medians over rounds, ratios of consecutive pairs taken within a round.

  scripts/bench_ab.py ROUNDS RUNS NAME=COMMAND...   (pairs: program, then its floor)
"""
import os, shlex, statistics, subprocess, sys
rounds, runs = int(sys.argv[1]), int(sys.argv[2])
progs = [a.split("=", 1) for a in sys.argv[3:]]
def one(cmd):
    child = subprocess.Popen(shlex.split(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, u = os.wait4(child.pid, 0)
    return u.ru_utime + u.ru_stime, u.ru_minflt, status
res = {n: [] for n, _ in progs}
for r in range(rounds):
    for n, c in progs:
        for _ in range(3): one(c)
    for n, c in progs:
        s = [one(c) for _ in range(runs)]
        res[n].append((statistics.mean(x[0] for x in s), statistics.mean(x[1] for x in s), s[0][2]))
for n, _ in progs:
    cpu = statistics.median(x[0] for x in res[n]); flt = statistics.median(x[1] for x in res[n])
    print(f"{n:<28}{cpu*1000:7.2f} ms cpu {flt:7.0f} faults exit={res[n][0][2]>>8}")
print("ratios (median over rounds of within-round ratios):")
pairs = [(progs[i][0], progs[i+1][0]) for i in range(0, len(progs) - 1, 2)]
for a, b in pairs:
    ratio = statistics.median(x[0] / y[0] for x, y in zip(res[a], res[b]))
    print(f"  {a} / {b}: {ratio:.2f}x")

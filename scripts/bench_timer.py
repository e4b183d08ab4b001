#!/usr/bin/env python3
"""scripts/bench.sh's timer when hyperfine is not installed.

Runs each command RUNS times after WARMUP runs and writes the subset of
hyperfine's --export-json that bench.sh reads: per command the median wall time
and the mean user and system CPU time, in seconds. CPU time comes from wait4's
rusage of each child, like /usr/bin/time; so does the peak RSS (--rss), but that
one is an upper bound: the kernel counts the memory of this Python process, which
the child shares until it execs (about 15 MiB), so bench.sh prefers /usr/bin/time.

  bench_timer.py [--shell] --runs N --warmup N --export-json FILE CMD...
  bench_timer.py --rss CMD < input     prints the child's peak RSS in KiB

Without --shell a command is split into words and run directly (hyperfine -N);
with it, through `sh -c` (for redirections). Exit codes are ignored (hyperfine -i).
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def run_once(command, shell):
    argv = ["sh", "-c", command] if shell else shlex.split(command)
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shell", action="store_true")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--export-json")
    parser.add_argument("--rss", action="store_true")
    parser.add_argument("commands", nargs="+")
    args = parser.parse_args()

    if args.rss:
        argv = shlex.split(args.commands[0])
        child = subprocess.Popen(argv, stdin=sys.stdin, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(child.pid, 0)
        print(usage.ru_maxrss)  # KiB on Linux
        return

    results = []
    for command in args.commands:
        for _ in range(args.warmup):
            run_once(command, args.shell)
        samples = [run_once(command, args.shell) for _ in range(args.runs)]
        results.append({
            "command": command,
            "median": statistics.median(wall for wall, _ in samples),
            "user": statistics.mean(u.ru_utime for _, u in samples),
            "system": statistics.mean(u.ru_stime for _, u in samples),
        })
    with open(args.export_json, "w") as out:
        json.dump({"results": results}, out)


if __name__ == "__main__":
    main()

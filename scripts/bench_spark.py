#!/usr/bin/env python3
"""`classify` and `audit` as a Spark stage (scripts/spark_satoken.py, local mode) next
to one process reading the same files (`-j 2`), side by side in one run: wall clock,
MB/s, and whether the outputs are the same bytes.

Usage: scripts/bench.sh spark [FILES [SIZE]]   (default 4 files of 50M each)
       python3 scripts/bench_spark.py BINARY FILES SIZE

Local mode on one machine measures Spark's overhead (its JVM, a task per file, the
shards' documents), not a cluster's reach: a cluster runs the same stage where the
files are, one task per file.
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = "2026-01-02T00:00:00Z"


def timed(args, **kw):
    start = time.monotonic()
    out = subprocess.run(args, capture_output=True, **kw)
    if out.returncode not in (0, 1):
        sys.exit(f"{args[:3]}: {out.stderr.decode(errors='replace')}")
    return time.monotonic() - start, out.stdout


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    binary, files, size = os.path.abspath(argv[0]), int(argv[1]), argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        logs = os.path.join(tmp, "logs")
        os.makedirs(logs)
        names = [f"apiserver-{i:02}.log" for i in range(files)]
        for i, name in enumerate(names):
            subprocess.run(
                [sys.executable, os.path.join(HERE, "gen_apiserver_log.py"), "--size", size,
                 "--seed", str(i + 1), "-o", os.path.join(logs, name),
                 "--counts", os.path.join(tmp, name + ".counts.json")],
                check=True, capture_output=True)
        total = sum(os.path.getsize(os.path.join(logs, n)) for n in names) / 1e6
        one, whole = timed([binary, "classify", "--now", NOW, "--log", "-j", "2", "-o", "json", *names], cwd=logs)
        spark, merged = timed(
            [sys.executable, os.path.join(HERE, "spark_satoken.py"), binary, "classify", logs,
             os.path.join(tmp, "shards"), "--", "--now", NOW, "-o", "json"])
        print(f"classify, {files} files, {total:.0f} MB")
        print(f"  one process, -j 2   {one:6.2f} s  {total / one:6.0f} MB/s")
        print(f"  Spark, local mode   {spark:6.2f} s  {total / spark:6.0f} MB/s  ({spark / one:.1f}x)")
        print(f"  same bytes: {'yes' if merged == whole else 'NO'}")
        return 0 if merged == whole else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""`kubectl satoken audit` as a Spark partition stage (docs/scale.md).

Each log file of INPUT (a directory, or any path or glob Spark reads: hdfs://,
s3a://, gs://) is one shard: a task pipes its bytes into `BINARY audit -o json -`
where the executor runs, the driver writes the shards' documents to OUT_DIR
(shard-NNNNN.json, in the files' name order) and prints `audit --merge` of them
(its own -o, table by default). Extra arguments after `--` go to the merge and,
but for -o, to every shard's `audit` (`--now`, `--leeway`).

Usage: spark-submit [--files BINARY] scripts/spark_audit.py BINARY INPUT OUT_DIR [-- ARGS…]
       python3 scripts/spark_audit.py …   (local mode, pyspark from PyPI)

With --files the binary is shipped to the executors and found there by its name;
otherwise BINARY must be a path every executor has (local mode: this machine's).
"""
import os
import subprocess
import sys


def shard(binary, extra):
    def run(records):
        from pyspark import SparkFiles

        shipped = SparkFiles.get(os.path.basename(binary))
        exe = shipped if os.path.exists(shipped) else binary
        for path, data in records:
            out = subprocess.run(
                [exe, "audit", "-o", "json", *extra, "-"],
                input=bytes(data),
                capture_output=True,
            )
            # 1 is "something was found"; 2 and up is a shard that could not be read.
            if out.returncode not in (0, 1):
                raise RuntimeError(f"{path}: {out.stderr.decode(errors='replace').strip()}")
            yield path, out.stdout

    return run


def without_output(args):
    """`args` without `-o FORMAT`: a shard always writes JSON."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "--output"):
            skip = True
        elif not a.startswith(("--output=", "-o")):
            out.append(a)
    return out


def main(argv):
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = argv[: argv.index("--")] if "--" in argv else argv
    if len(args) != 3:
        sys.exit(__doc__.split("\n\n")[2])
    binary, source, out_dir = args
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("satoken-audit").getOrCreate()
    try:
        files = spark.sparkContext.binaryFiles(source)
        docs = sorted(files.mapPartitions(shard(binary, without_output(extra))).collect())
    finally:
        spark.stop()
    os.makedirs(out_dir, exist_ok=True)
    shards = []
    for i, (_, doc) in enumerate(docs):
        shards.append(os.path.join(out_dir, f"shard-{i:05}.json"))
        with open(shards[-1], "wb") as f:
            f.write(doc)
    merged = subprocess.run([binary, "audit", *extra, "--merge", *shards])
    return merged.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

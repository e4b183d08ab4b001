#!/usr/bin/env python3
"""`kubectl satoken audit` or `classify` as a Spark partition stage (docs/scale.md).

Each log file of INPUT (a directory, or any path or glob Spark reads: hdfs://,
s3a://, gs://) is one shard: a task writes its bytes to a scratch directory
under the file's path relative to INPUT and runs `BINARY audit -o json PATH`
(or `BINARY classify --log --shard -o json PATH`) there, so that each shard names its
file as a run over INPUT would. The driver writes the shards' documents to
OUT_DIR (shard-NNNNN.json, in the files' path order) and prints their
`--merge` (its own -o, table by default). Extra arguments after `--` go to
the merge and, but for -o, to every shard (`--now`, `--leeway`).

Usage: spark-submit [--files BINARY] scripts/spark_satoken.py BINARY audit|classify INPUT OUT_DIR [-- ARGS…]
       python3 scripts/spark_satoken.py …   (local mode, pyspark from PyPI)

With --files the binary is shipped to the executors and found there by its name;
otherwise BINARY must be a path every executor has (local mode: this machine's).
"""
import os
import subprocess
import sys
import tempfile

SHARD = {
    "audit": ["audit", "-o", "json"],
    "classify": ["classify", "--log", "--shard", "-o", "json"],
}


def relative(path, root):
    """`path` under `root` (both as Spark names them, `file:/…`, `s3a://…`)."""
    root = root.rstrip("/") + "/"
    for prefix in (root, "file:" + root, "file://" + root):
        if path.startswith(prefix):
            return path[len(prefix) :]
    return os.path.basename(path)


def shard(binary, command, root, extra):
    def run(records):
        from pyspark import SparkFiles

        shipped = SparkFiles.get(os.path.basename(binary))
        exe = shipped if os.path.exists(shipped) else binary
        for path, data in records:
            rel = relative(path, root)
            with tempfile.TemporaryDirectory() as scratch:
                local = os.path.join(scratch, rel)
                os.makedirs(os.path.dirname(local), exist_ok=True)
                with open(local, "wb") as f:
                    f.write(bytes(data))
                out = subprocess.run(
                    [exe, *SHARD[command], *extra, rel], cwd=scratch, capture_output=True
                )
            # 1 is "something was found"; 2 and up is a shard that could not be read.
            if out.returncode not in (0, 1):
                raise RuntimeError(f"{path}: {out.stderr.decode(errors='replace').strip()}")
            yield rel, out.stdout

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
    if len(args) != 4 or args[1] not in SHARD:
        sys.exit(__doc__.split("\n\n")[2])
    binary, command, source, out_dir = args
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName(f"satoken-{command}").getOrCreate()
    try:
        files = spark.sparkContext.binaryFiles(source)
        run = shard(binary, command, source, without_output(extra))
        docs = sorted(files.mapPartitions(run).collect())
    finally:
        spark.stop()
    os.makedirs(out_dir, exist_ok=True)
    shards = []
    for i, (_, doc) in enumerate(docs):
        shards.append(os.path.join(out_dir, f"shard-{i:05}.json"))
        with open(shards[-1], "wb") as f:
            f.write(doc)
    merged = subprocess.run([binary, command, *extra, "--merge", *shards])
    return merged.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env bash
# Whole-process benchmarks of the release binary, side by side in one run.
# Usage: scripts/bench.sh [RUNS]   (needs hyperfine; falls back to a timing loop)
# Prints: one-token `decode -o json` time, batch throughput on 10,000 and 100,000
# tokens (tokens/s), peak RSS for both batch sizes, and the binary's size.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
cargo build --release --quiet
bin=target/release/kubectl-satoken
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now=2026-01-01T00:00:00Z

# Batches cycle through the fixture tokens (several kinds, RS256 and EC; some
# carry error findings, so the batch exits 1: -i tells hyperfine that is expected).
python3 - "$work" <<'PY'
import sys, pathlib
tokens = [p.read_text().strip() for p in sorted(pathlib.Path("testdata/tokens").glob("*.jwt"))]
for n in (10_000, 100_000):
    with open(f"{sys.argv[1]}/batch-{n}.txt", "w") as f:
        for i in range(n):
            f.write(tokens[i % len(tokens)] + "\n")
PY
one=testdata/tokens/projected.jwt

echo "binary: $(stat -c %s "$bin") bytes ($bin)"
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/one.json" \
    "$bin decode -o json --now $now -f $one" >/dev/null
  hyperfine -N -i --warmup 2 --runs 10 --export-json "$work/batch.json" \
    "$bin decode -o json --now $now -f $work/batch-10000.txt" \
    "$bin decode -o json --now $now -f $work/batch-100000.txt" >/dev/null
  python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
one = json.load(open(f"{w}/one.json"))["results"][0]
print(f"decode -o json, one token: median {one['median']*1000:.2f} ms (mean {one['mean']*1000:.2f} ± {one['stddev']*1000:.2f} ms)")
for r, n in zip(json.load(open(f"{w}/batch.json"))["results"], (10_000, 100_000)):
    print(f"decode -o json, {n} tokens: median {r['median']*1000:.1f} ms = {n / r['median']:,.0f} tokens/s")
PY
else
  start=$(date +%s%N); for _ in $(seq "$runs"); do "$bin" decode -o json --now $now -f $one >/dev/null; done
  echo "decode -o json, one token: $(( ($(date +%s%N) - start) / runs / 1000 )) µs mean"
fi
for n in 10000 100000; do
  /usr/bin/time -f "peak RSS, $n tokens: %M KiB" "$bin" decode -o json --now $now -f "$work/batch-$n.txt" 2>&1 >/dev/null | tail -1 || true
done

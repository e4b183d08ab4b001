#!/usr/bin/env bash
# Whole-process benchmarks of the release binary against minimal floors, side by
# side in one run (compare ratios only within one run: the machine is noisy).
#
# Usage: scripts/bench.sh [RUNS]     (needs hyperfine and python3)
#
# Times, with hyperfine:
#   1. one token:   `decode -o json` vs benches/minimal_decode.rs vs `jwt decode -j`
#                   (jwt-cli, when `jwt` is on PATH; skipped otherwise)
#   2. batch:       `decode -o json` on 10,000 tokens from stdin vs minimal_decode
#   3. verify:      one-token `verify --jwks` vs benches/minimal_verify.rs
# and prints ratios, tokens/s, peak RSS (/usr/bin/time) for 10k and 100k tokens,
# and the release binary's size.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
cargo build --release --quiet --bin kubectl-satoken --example minimal_decode --example minimal_verify
target=${CARGO_TARGET_DIR:-target}
bin=$target/release/kubectl-satoken
floor=$target/release/examples/minimal_decode
vfloor=$target/release/examples/minimal_verify
command -v hyperfine >/dev/null || { echo "bench.sh: hyperfine is not installed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now=2026-01-01T00:00:00Z
iss=https://kubernetes.default.svc.cluster.local
one=testdata/tokens/projected.jwt

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

one_cmds=("$bin decode -o json --now $now -f $one" "$floor $one")
if command -v jwt >/dev/null; then
  one_cmds+=("jwt decode -j $(cat $one)")
else
  echo "jwt-cli not installed (cargo install jwt-cli): its column is skipped"
fi
hyperfine -N -i --warmup 10 --runs "$runs" --export-json "$work/one.json" "${one_cmds[@]}" >/dev/null
hyperfine -i --warmup 2 --runs 10 --export-json "$work/batch.json" \
  "$bin decode -o json --now $now < $work/batch-10000.txt" \
  "$floor < $work/batch-10000.txt" >/dev/null
hyperfine -N --warmup 10 --runs "$runs" --export-json "$work/verify.json" \
  "$bin verify -o json --now $now --jwks testdata/jwks.json --issuer $iss --audience $iss -f $one" \
  "$vfloor $one testdata/jwks.json $iss $iss" >/dev/null

for n in 10000 100000; do
  for prog in "$bin decode -o json --now $now" "$floor"; do
    /usr/bin/time -f "%M" -o "$work/rss" $prog < "$work/batch-$n.txt" >/dev/null || true
    echo "$n $(basename "${prog%% *}") $(tail -1 "$work/rss")" >> "$work/rss.txt"
  done
done

python3 - "$work" "$bin" "$floor" <<'PY'
import json, os, sys
w, bin, floor = sys.argv[1:4]
def load(name):
    return json.load(open(f"{w}/{name}.json"))["results"]
ms = lambda r: f"{r['median'] * 1000:.2f} ms"
# CPU time (user + system, mean) is steadier than wall time on a shared machine.
cpu = lambda r: r["user"] + r["system"]
def row(label, r, base, per=None):
    wall = f"{r['median'] * 1000:8.2f} ms wall {r['median'] / base['median']:5.2f}x"
    cpus = f"{cpu(r) * 1000:8.2f} ms cpu {cpu(r) / cpu(base):5.2f}x"
    extra = f"  = {per / r['median']:,.0f} tokens/s (wall)" if per else ""
    print(f"  {label:<16}{wall}  {cpus}{extra}")
labels = ["decode -o json", "minimal_decode", "jwt decode -j"]
one = load("one")
print("one token (median wall, mean cpu; ratios against the minimal program)")
for label, r in zip(labels, one):
    row(label, r, one[1])
if len(one) > 2:
    print(f"  decode / jwt-cli: {one[0]['median'] / one[2]['median']:.2f}x wall,"
          f" {cpu(one[0]) / cpu(one[2]):.2f}x cpu")
b = load("batch")
print("10,000 tokens from stdin")
for label, r in zip(labels, b):
    row(label, r, b[1], per=10_000)
v = load("verify")
print("verify one token (RS256, --jwks)")
for label, r in zip(["verify --jwks", "minimal_verify"], v):
    row(label, r, v[1])
print("peak RSS (KiB), batch from stdin")
for line in open(f"{w}/rss.txt"):
    n, prog, kib = line.split()
    print(f"  {int(n):>7,} tokens  {prog:<16} {kib} KiB")
print(f"release binary: {os.path.getsize(bin):,} bytes; minimal_decode: {os.path.getsize(floor):,} bytes")
PY

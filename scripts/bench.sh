#!/usr/bin/env bash
# Whole-process benchmarks, side by side in one run (compare ratios only within
# one run: the machine is noisy).
#
# Usage: scripts/bench.sh [RUNS [ROUNDS]]   (needs python3; uses hyperfine when
#        installed, else scripts/bench_timer.py, which times with wait4's rusage as
#        /usr/bin/time does)
#        BENCH_DYNAMIC_ONLY=1 scripts/bench.sh   skips the static builds (~10 min)
#        BENCH_NO_HYPERFINE=1 scripts/bench.sh   uses the fallback timer
#        BENCH_STATIC_TARGET=x86_64-unknown-linux-musl scripts/bench.sh
#                 times the musl build the release archive ships (and floors built
#                 the same way) instead of the static glibc one
#        scripts/bench.sh audit [SIZE…]          `audit`'s MB/s next to grep -c and a jq
#                                                pipeline, and its peak RSS (bench_audit.sh)
#        scripts/bench.sh joins [LINES]          the log joins under load: many reason sets, and
#                                                one timestamp against many (bench_joins.sh)
#        scripts/bench.sh spark [FILES [SIZE]]   classify as a Spark stage (local mode) next to one
#                                                process over the same files (bench_spark.py)
#        scripts/bench.sh classify [SIZE]        only the classify-on-a-log benchmark below
#        BENCH_CLASSIFY_SIZE=20M scripts/bench.sh  its log's size (default 200M)
#
# Each benchmark runs ROUNDS times (default 5), every program RUNS times per round
# (default 20). A VM's speed drifts by tens of percent from minute to minute, so
# ratios are taken within each round, where the programs ran back to back, and the
# median over the rounds is reported.
#
# Programs:
#   shipped   the static binary (scripts/build-static.sh; BENCH_STATIC_TARGET)
#   dynamic   `cargo build --release`, what `cargo install` gives
#   floor     benches/minimal_{decode,verify}.rs built the default way (the floor
#             the targets are written against), and the same floors built static
#             (`floor-static`) for a like-for-like ratio with `shipped`
#   jwt-cli   `jwt decode -j`, when `jwt` is on PATH (cargo install jwt-cli)
# Times: one-token `decode -o json`, 10,000 tokens on stdin, one-token
# `verify --jwks`, `classify` on a generated kube-apiserver log
# (scripts/gen_apiserver_log.py, and BENCH_SECOND_GENERATOR's mix when it is
# there) with one worker next to `grep -c -E 'Unable to authenticate|resp=40[13]'`
# on the same file and with two workers for the wall clock, a 256 KB token decoded as a table; then peak RSS (/usr/bin/time,
# else bench_timer.py --rss) at 10k and 100k tokens and of classify on the log, sizes;
# classify's output lines, its JSON's size and its counts per cause next to those planted.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = audit ]; then
  shift
  exec scripts/bench_audit.sh "$@"
fi
if [ "${1:-}" = spark ]; then
  cargo build --release --locked --quiet
  exec python3 scripts/bench_spark.py target/release/kubectl-satoken "${2:-4}" "${3:-50M}"
fi
if [ "${1:-}" = joins ]; then
  shift
  exec scripts/bench_joins.sh "$@"
fi
only_classify=
if [ "${1:-}" = classify ]; then
  only_classify=1
  BENCH_CLASSIFY_SIZE=${2:-${BENCH_CLASSIFY_SIZE:-200M}}
  set -- 3 "${BENCH_ROUNDS:-3}"
fi
runs=${1:-20}
rounds=${2:-5}
# time_commands direct|shell RUNS WARMUP JSON COMMAND...: hyperfine -i (with -N for
# direct), or the fallback timer (also with BENCH_NO_HYPERFINE=1).
time_commands() {
  local shell=$1 runs=$2 warmup=$3 json=$4
  shift 4
  if [ -z "${BENCH_NO_HYPERFINE:-}" ] && command -v hyperfine >/dev/null; then
    local direct=(-N)
    [ "$shell" = shell ] && direct=()
    hyperfine "${direct[@]}" -i --warmup "$warmup" --runs "$runs" --export-json "$json" "$@" >/dev/null 2>&1
  else
    local flag=()
    [ "$shell" = shell ] && flag=(--shell)
    python3 scripts/bench_timer.py "${flag[@]}" --runs "$runs" --warmup "$warmup" --export-json "$json" "$@"
  fi
}
if [ -n "${BENCH_NO_HYPERFINE:-}" ] || ! command -v hyperfine >/dev/null; then
  echo "timing with scripts/bench_timer.py (hyperfine not installed or BENCH_NO_HYPERFINE set)"
fi

cargo build --release --quiet --locked --bin kubectl-satoken --example minimal_decode --example minimal_verify
target=${CARGO_TARGET_DIR:-target}
dyn=$target/release/kubectl-satoken
floor=$target/release/examples/minimal_decode
vfloor=$target/release/examples/minimal_verify
if [ -z "${BENCH_DYNAMIC_ONLY:-}" ] && [ -z "$only_classify" ]; then
  built=$(scripts/build-static.sh --target "${BENCH_STATIC_TARGET:-x86_64-unknown-linux-gnu}" --floors)
  shipped=$(sed -n 's/^path: *//p' <<<"$built")
  sfloors=$(sed -n 's/^floors: *//p' <<<"$built")
fi

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

# A day of kube-apiserver log with 0.3 % authentication failures (the counts
# planted are in $log.counts.json), read once so both programs read it from the
# page cache. Outputs go to files: GNU grep stops at the first match when its
# output is /dev/null.
log=$work/apiserver.log
size=${BENCH_CLASSIFY_SIZE:-200M}
python3 scripts/gen_apiserver_log.py --size "$size" --seed 1 -o "$log"
# A second generator's mix (other klog chatter, etcd's `watch chan error`), when
# it is there: BENCH_SECOND_GENERATOR, by default the team's shared one.
second=${BENCH_SECOND_GENERATOR:-../shared/bench/make_apiserver_log.py}
log2=$work/second.log
if [ -f "$second" ]; then
  python3 "$second" "${size%M}" "$log2" >/dev/null
else
  echo "$second not found: the second generator's rows repeat the first's" >&2
  cp "$log" "$log2"
fi
cat "$log" "$log2" >/dev/null
classify_cmd="$dyn classify -o table --now $now $log"
# One worker for CPU next to grep's (one thread), two for the wall clock.
grep_c="grep -c -E 'Unable to authenticate|resp=40[13]'"
classify=("$dyn classify -j 1 -o table --now $now $log > $work/classify.out 2>&1"
  "$grep_c $log > $work/grep.out"
  "$dyn classify -j 1 -o table --now $now $log2 > $work/classify2.out 2>&1"
  "$grep_c $log2 > $work/grep2.out"
  "$dyn classify -j 2 -o table --now $now $log > $work/classify-j2.out 2>&1"
  "$dyn classify -j 2 -o table --now $now $log2 > $work/classify2-j2.out 2>&1")

# name<TAB>command lines, per benchmark; hyperfine keeps their order.
decode_one=() batch=() verify=() names=()
add() { # name decode-one batch verify
  names+=("$1")
  decode_one+=("$2")
  batch+=("$3")
  verify+=("$4")
}
dec="decode -o json --now $now"
ver="verify -o json --now $now --jwks testdata/jwks.json --issuer $iss --audience $iss"
if [ -n "${shipped:-}" ]; then
  add shipped "$shipped $dec -f $one" "$shipped $dec < $work/batch-10000.txt" "$shipped $ver -f $one"
fi
add dynamic "$dyn $dec -f $one" "$dyn $dec < $work/batch-10000.txt" "$dyn $ver -f $one"
add floor "$floor $one" "$floor < $work/batch-10000.txt" "$vfloor $one testdata/jwks.json $iss $iss"
if [ -n "${sfloors:-}" ]; then
  add floor-static "$sfloors/minimal_decode $one" "$sfloors/minimal_decode < $work/batch-10000.txt" \
    "$sfloors/minimal_verify $one testdata/jwks.json $iss $iss"
fi
jwt_cmd=()
if command -v jwt >/dev/null; then
  jwt_cmd=("jwt decode -j $(cat $one)")
else
  echo "jwt-cli not installed (cargo install jwt-cli): its row is skipped"
fi
printf '%s\n' "${names[@]}" > "$work/names"

for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  time_commands shell 3 1 "$work/classify-$round.json" "${classify[@]}"
  [ -n "$only_classify" ] && continue
  time_commands direct "$runs" 5 "$work/one-$round.json" "${decode_one[@]}" "${jwt_cmd[@]}"
  time_commands shell 5 1 "$work/batch-$round.json" "${batch[@]}"
  time_commands direct "$runs" 5 "$work/verify-$round.json" "${verify[@]}"
done
set +e
sh -c "${classify[0]}"
echo "$?" > "$work/classify.exit"
set -e
# The report as JSON: its size, and its counts per cause next to those planted.
$dyn classify -o json --now $now "$log" > "$work/classify.json" 2>/dev/null || true
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "%M" -o "$work/classify.rss" $classify_cmd >/dev/null 2>&1 || true
else
  python3 scripts/bench_timer.py --rss "$classify_cmd" < /dev/null > "$work/classify.rss"
fi
report_classify() {
  python3 - "$work" "$rounds" "$log" <<'PY'
import json, os, statistics, sys
w, rounds, log = sys.argv[1:4]
med = statistics.median
cpu = lambda r: r["user"] + r["system"]
runs = [json.load(open(f"{w}/classify-{i}.json"))["results"] for i in range(1, int(rounds) + 1)]
size = os.path.getsize(log)
planted = json.load(open(f"{log}.counts.json"))
size2 = os.path.getsize(f"{w}/second.log")
print(f"classify on a {size / 1e6:,.0f} MB kube-apiserver log ({planted['lines']:,} lines, "
      f"{sum(planted['planted'].values()):,} failures planted) and on the second "
      f"generator's {size2 / 1e6:,.0f} MB (median of {rounds} rounds)")
print(f"  {'':<24}{'wall':>9}{'cpu':>9}{'MB/s cpu':>10}{'MB/s wall':>10}   cpu ratio to grep -c")
rows = (("classify -j 1", 0, 1, size), ("grep -c", 1, 1, size),
        ("classify -j 1 (second)", 2, 3, size2), ("grep -c (second)", 3, 3, size2),
        ("classify -j 2", 4, 1, size), ("classify -j 2 (second)", 5, 3, size2))
for name, i, g, n in rows:
    wall = med(r[i]["median"] for r in runs)
    c = med(cpu(r[i]) for r in runs)
    ratio = med(cpu(r[i]) / cpu(r[g]) for r in runs)
    print(f"  {name:<24}{wall:8.2f}s{c:8.2f}s{n / 1e6 / c:10,.0f}{n / 1e6 / wall:10,.0f}   {ratio:6.2f}x")
out = open(f"{w}/classify.out", errors="replace").read()
rss = int(open(f"{w}/classify.rss").read().split()[-1])
code = open(f"{w}/classify.exit").read().strip()
print(f"  classify: exit {code}, {out.count(chr(10)):,} output lines, peak RSS {rss / 1024:.1f} MiB"
      + (f" ({out.splitlines()[0][:100]})" if code == "2" and out else ""))
print(f"  grep -c: {open(f'{w}/grep.out').read().strip()} lines (planted: {planted['grep_c']})")
# Events per cause as the generator names them: a 401's cause, `401-no-reason`
# for a 401 without the server's reason, `403`.
found = {}
try:
    doc = json.load(open(f"{w}/classify.json"))
except ValueError:
    doc = {"groups": []}
for g in doc["groups"]:
    if g["classification"] == "401-invalid-token":
        key = g["cause"] if g["reasons"] else "401-no-reason"
    elif g["classification"] == "403-forbidden":
        key = "403"
    else:
        continue
    found[key] = found.get(key, 0) + g["events"]
print(f"  classify -o json: {os.path.getsize(f'{w}/classify.json'):,} bytes, "
      f"{len(doc['groups'])} groups")
print(f"  {'cause':<28}{'planted':>9}{'found':>9}")
for cause in sorted(set(planted["planted"]) | set(found)):
    p, f = planted["planted"].get(cause, 0), found.get(cause, 0)
    print(f"  {cause:<28}{p:9,}{f:9,}{'' if p == f else '   differs'}")
PY
}
if [ -n "$only_classify" ]; then
  report_classify
  exit 0
fi

main=${shipped:-$dyn}
for n in 10000 100000; do
  for prog in "$main $dec" "$floor"; do
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f "%M" -o "$work/rss" $prog < "$work/batch-$n.txt" >/dev/null || true
      kib=$(tail -1 "$work/rss")
    else
      kib=$(python3 scripts/bench_timer.py --rss "$prog" < "$work/batch-$n.txt")
    fi
    echo "$n $(basename "${prog%% *}") $kib" >> "$work/rss.txt"
  done
done

# A 256 KB token whose sub is one 190 KB word, decoded as a table: cells are capped,
# so this takes milliseconds (before the cap: 21 s of CPU, wrapping was quadratic).
python3 - "$work" <<'PY'
import base64, json, sys
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
claims = {"sub": "s" * (190 * 1024), "exp": 1767229200, "iss": "x"}
with open(f"{sys.argv[1]}/big.jwt", "w") as f:
    f.write(b64(b'{"alg":"RS256"}') + "." + b64(json.dumps(claims).encode()) + ".c2lnbmF0dXJl\n")
PY
python3 scripts/bench_timer.py --runs 5 --warmup 1 --export-json "$work/big.json" \
  "$main decode --now $now -f $work/big.jwt" >/dev/null

python3 - "$work" "$main" "$dyn" "$floor" "$rounds" <<'PY'
import json, os, statistics, sys
w, main, dyn, floor, rounds = sys.argv[1:6]
names = open(f"{w}/names").read().split() + ["jwt-cli"]
med = statistics.median
# CPU time (user + system, mean of the round) is steadier than wall time.
cpu = lambda r: r["user"] + r["system"]
def table(title, bench, per=None):
    runs = [dict(zip(names, json.load(open(f"{w}/{bench}-{i}.json"))["results"]))
            for i in range(1, int(rounds) + 1)]
    bases = [b for b in ("floor", "floor-static", "jwt-cli") if b in runs[0]]
    print(f"{title} (median of {rounds} rounds)")
    print(f"  {'':<13}{'wall':>9}{'cpu':>9}   cpu ratio to " + ", ".join(bases))
    for name in runs[0]:
        wall = med(r[name]["median"] for r in runs)
        c = med(cpu(r[name]) for r in runs)
        ratios = "  ".join(f"{med(cpu(r[name]) / cpu(r[b]) for r in runs):5.2f}x" for b in bases)
        rate = f"  {per / wall:,.0f} tokens/s" if per else ""
        print(f"  {name:<13}{wall * 1000:6.2f} ms{c * 1000:6.2f} ms   {ratios}{rate}")
table("one token, decode -o json", "one")
table("10,000 tokens on stdin, decode -o json", "batch", per=10_000)
table("one token, verify --jwks (RS256)", "verify")
big = json.load(open(f"{w}/big.json"))["results"][0]
print(f"256 KB token, decode as a table: {big['median'] * 1000:.1f} ms wall, {cpu(big) * 1000:.1f} ms cpu")
print("peak RSS, batch on stdin")
for line in open(f"{w}/rss.txt"):
    n, prog, kib = line.split()
    print(f"  {int(n):>7,} tokens  {prog:<16} {int(kib) / 1024:.1f} MiB")
for label, path in (("shipped (static)", main), ("dynamic", dyn), ("floor", floor)):
    if label != "shipped (static)" or main != dyn:
        print(f"size: {label:<17}{os.path.getsize(path):>12,} bytes")
PY
report_classify

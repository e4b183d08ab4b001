#!/usr/bin/env bash
# The log joins under load, side by side in one run (compare ratios only within
# one run: the machine is shared and noisy). Run through `scripts/bench.sh joins`.
#
# Usage: scripts/bench_joins.sh [LINES]   (default 200000; BENCH_JOINS_BIN=PATH
#        times that binary instead of building one; BENCH_JOINS_RUNS=N, default 3)
#
# Prints wall seconds (the median of the runs) of:
#   sets      `audit --apiserver-log` of a log whose every reason line names
#             another object (as many distinct reason sets as lines: the join's
#             reason sets must be hashed, not compared one by one)
#   dated     `classify --log` of scripts/gen_apiserver_log.py's log, a fifth of
#             its requests failing authentication
#   one-time  the same log with every line at one timestamp, and its ratio to
#             `dated` (every join candidate is in every other's window)
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-200000}
runs=${BENCH_JOINS_RUNS:-3}
bin=${BENCH_JOINS_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet --locked --bin kubectl-satoken
  bin=${CARGO_TARGET_DIR:-target}/release/kubectl-satoken
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now=2026-01-02T00:00:00Z

python3 scripts/gen_audit.py --events 2000 --seed 7 -o "$work/audit.jsonl" >/dev/null 2>&1
# Reason lines naming a new ServiceAccount each, with their 401s, 1 ms apart.
python3 - "$lines" >"$work/api.log" <<'EOF'
import sys
n = int(sys.argv[1])
for i in range(n):
    t = f"E0101 {10 + i // 3600000:02d}:{i // 60000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}000       1 "
    print(t + 'authentication.go:75] "Unable to authenticate the request" '
          f'err="[invalid bearer token, serviceaccounts \\"sa-{i}\\" not found]"')
    print(t.replace("E", "I", 1) + 'httplog.go:134] "HTTP" verb="GET" URI="/api/v1/pods" '
          f'latency="1ms" userAgent="app/1" audit-ID="x-{i}" srcIP="10.0.0.1:4000" resp=401')
EOF
gzip -k "$work/api.log"
python3 scripts/gen_apiserver_log.py --lines "$lines" --failures 0.2 --seed 3 -o "$work/dated.log" >/dev/null
# Every klog header at one instant.
sed -E 's/^([IWEF])[0-9]{4} [0-9:.]{15}/\10101 10:00:00.000000/' "$work/dated.log" >"$work/one-time.log"

wall() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  awk "BEGIN { print $end - $start }"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
time_of() { for _ in $(seq "$runs"); do wall "$@"; done | median; }

sets=$(time_of "$bin" audit --now "$now" "$work/audit.jsonl" --apiserver-log "$work/api.log.gz")
dated=$(time_of "$bin" classify --now "$now" --log "$work/dated.log")
one=$(time_of "$bin" classify --now "$now" --log "$work/one-time.log")
printf 'sets      %8.2f s  (%s of gzip)\n' "$sets" "$(du -h "$work/api.log.gz" | cut -f1)"
printf 'dated     %8.2f s\n' "$dated"
printf 'one-time  %8.2f s  %.2fx dated\n' "$one" "$(awk "BEGIN { print $one / $dated }")"

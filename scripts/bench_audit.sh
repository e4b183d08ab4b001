#!/usr/bin/env bash
# `kubectl satoken audit` throughput and memory, side by side in one run with
# `grep -c` (the floor: reading the bytes) and a jq pipeline doing the same
# grouping (failing requests per user and status). Run through
# `scripts/bench.sh audit [SIZES…]`.
#
# Usage: scripts/bench_audit.sh [SIZE…]   (default: 200M 2G; sizes as
#        scripts/gen_audit.py --size takes them; BENCH_AUDIT_RUNS=N runs per
#        program and size, default 3; BENCH_AUDIT_NO_JQ=1 skips jq on sizes
#        over 1 GB, where one run takes minutes; BENCH_AUDIT_BIN=PATH times that
#        binary instead of building one, e.g. the shipped static one)
#
# Logs are generated into a temporary directory (removed on exit) and read once
# before timing, so every program reads them from the page cache. Rates are MB/s
# of log (10^6 bytes) over wall time, the median of the runs; ratios are taken
# within one run of this script (the machine is shared and noisy). Peak RSS is
# /usr/bin/time's %M.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(200M 2G)
runs=${BENCH_AUDIT_RUNS:-3}
for tool in jq /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench_audit.sh needs $tool" >&2; exit 2; }
done

bin=${BENCH_AUDIT_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet --locked --bin kubectl-satoken
  bin=${CARGO_TARGET_DIR:-target}/release/kubectl-satoken
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now=2026-01-02T00:00:00Z
# The same grouping as `audit`'s failing rows: 401/403 per user, status and
# request (jq parses every line; sort | uniq -c groups).
jq_filter='select(.stage == "ResponseComplete" and .responseStatus.code >= 401 and .responseStatus.code <= 403)
  | [.responseStatus.code, .user.username // "", .sourceIPs[0], .verb, .objectRef.resource // "", .objectRef.namespace // ""]
  | @tsv'

# wall SECONDS of one run of a shell command.
wall() {
  local start end
  start=$(date +%s.%N)
  # Into a file, not /dev/null: GNU grep stops at the first match when its
  # output is /dev/null.
  sh -c "$1" >"$work/out" 2>&1 || true
  end=$(date +%s.%N)
  calc "$end - $start"
}
calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-6s %-9s %10s %9s %12s %12s\n' size program "MB/s" "wall s" "vs grep -c" "vs jq"
for size in "${sizes[@]}"; do
  log=$work/audit-$size.log
  python3 scripts/gen_audit.py --size "$size" --seed 1 -o "$log" >/dev/null
  bytes=$(stat -c %s "$log")
  cat "$log" >/dev/null
  declare -A cmd=(
    [satoken]="$bin audit -o json --now $now --no-progress $log"
    [grep]="grep -c '\"code\":40[13]' $log"
    [jq]="jq -r '$jq_filter' $log | sort | uniq -c"
  )
  programs=(satoken grep jq)
  if [ -n "${BENCH_AUDIT_NO_JQ:-}" ] && [ "$bytes" -gt 1000000000 ]; then
    programs=(satoken grep)
  fi
  declare -A secs=()
  for p in "${programs[@]}"; do
    n=$runs
    [ "$p" = jq ] && [ "$bytes" -gt 1000000000 ] && n=1
    secs[$p]=$(for _ in $(seq "$n"); do wall "${cmd[$p]}"; done | median)
  done
  for p in "${programs[@]}"; do
    rate=$(calc "$bytes / 1000000 / ${secs[$p]}")
    vs_grep=$(calc "${secs[grep]} / ${secs[$p]}")
    vs_jq=-
    [ -n "${secs[jq]:-}" ] && vs_jq=$(printf '%.2fx' "$(calc "${secs[jq]} / ${secs[$p]}")")
    printf '%-6s %-9s %10.0f %9.2f %11.2fx %12s\n' "$size" "$p" "$rate" "${secs[$p]}" "$vs_grep" "$vs_jq"
  done
  /usr/bin/time -f %M -o "$work/rss" "$bin" audit -o json --now $now --no-progress "$log" >/dev/null || true
  echo "$size   satoken peak RSS $(( $(tail -1 "$work/rss") / 1024 )) MiB ($bytes bytes, $(wc -l < "$log") lines)"
  unset cmd secs
  rm -f "$log"
done

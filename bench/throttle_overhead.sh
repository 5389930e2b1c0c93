#!/usr/bin/env bash
# What watching a replica costs: `rowpump backfill` of the 1M-row sysbench table into an NDJSON file,
# without and with `--replica URL` at the default settings (a heartbeat written on the primary every
# 100 ms, the replica's replication status and heartbeat read every 100 ms, workers consulting the gate
# between pages). The replica is the one scripts/services.sh starts; it must keep up (nothing else writes),
# so the difference is the checking, not throttling.
#
# BENCH_RUNS rounds; each runs both variants, the order alternating between rounds so that a burst of
# load from elsewhere hits both alike. Every run is checked to have written every row. Prints, and writes
# to BENCH_RESULTS, a markdown table: median wall time, client CPU and MariaDB CPU of each variant, and the
# overhead in percent (goal: < 3%). Refuses to run while the 1-minute load average is above
# BENCH_MAX_LOAD (default: the number of cores), unless BENCH_FORCE=1.
#
#   eval "$(scripts/services.sh env)"
#   bench/throttle_overhead.sh                      # uses build/rowpump
#
# Environment: ROWPUMP_MYSQL_URL, ROWPUMP_REDIS_URL and ROWPUMP_REPLICA_URL (required), ROWPUMP_BIN
# (build/rowpump), BENCH_RUNS (5), BENCH_WORKERS (rowpump's default when unset), BENCH_MAX_LOAD (nproc),
# BENCH_FORCE (0), BENCH_RESULTS (bench/results/throttle_overhead.md), BENCH_TABLE (sbtest1; created by
# bench/sysbench_table.sh when it is missing).
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
runs="$(setting BENCH_RUNS 5 count)"
workers="$(setting BENCH_WORKERS "" optional-count)"
table="$(setting BENCH_TABLE sbtest1 name)"
results_file throttle_overhead

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_env ROWPUMP_REPLICA_URL
require_rowpump "$rowpump_bin"
require_tools mariadb

refuse_when_loaded "$cores"
[[ "$table" != sbtest1 ]] || "$root/bench/sysbench_table.sh"

make_private_dir rp_bench_throttle
mysql_connection
redis_connection
rowpump_password_files
measure_setup

# The replica URL without its password: the replica shares the source's account (docs/throttling.md).
replica_url="$(printf '%s' "$ROWPUMP_REPLICA_URL" | sed -E 's#^(mysql://[^:@/]+):[^@]*@#\1@#')"
rows="$(sql "SELECT COUNT(*) FROM $table")"
output="$private_dir/out.ndjson"

# One backfill; its figures go to $private_dir/<variant>.times (bench/lib/measure.sh's columns).
timed_run() {
  local variant="$1" round="$2" count
  local args=(-q backfill --table "$table" --sink "file:$output" --overwrite)
  [[ -z "$workers" ]] || args+=(--workers "$workers")
  [[ "$variant" == plain ]] || args+=(--replica "$replica_url")
  measure "$variant" "$rows" "$rowpump_bin" "${args[@]}"
  count="$(wc -l <"$output")"
  rm -f "$output"
  [[ "$count" == "$rows" ]] || { log "$variant run $round wrote $count rows, expected $rows"; exit 1; }
  last_wall "$variant"
}

log "$rows rows of $db_name.$table; load $load_before on $cores cores; $runs rounds"
for round in $(seq 1 "$runs"); do
  if (( round % 2 )); then order="plain replica"; else order="replica plain"; fi
  for variant in $order; do
    seconds="$(timed_run "$variant" "$round")"
    log "round $round $variant: $seconds s"
  done
done
uptime_after="$(uptime_line)"

{
  echo "# Throttle overhead: \`rowpump backfill\` with and without \`--replica\`"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); rowpump $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?');"
  echo "$(uname -sr), $cores cores; $rows rows of \`$table\` into an NDJSON file, JSON payloads, default page"
  echo "size, ${workers:-default} workers; the replica is scripts/services.sh's, on the same machine."
  echo "Produced by \`bench/throttle_overhead.sh\`."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "$runs runs per variant, alternating order. Medians; overhead = median with --replica / median"
  echo "without - 1 (goal: < 3%). MariaDB CPU is the primary's (the heartbeat's writes and the pages)."
  echo
  echo "| variant | wall (median) | client CPU | MariaDB CPU | wall runs |"
  echo "|---|---|---|---|---|"
  for variant in plain replica; do
    awk -v v="$variant" -v w="$(column_median "$variant" 1)" -v c="$(column_median "$variant" 3)" \
        -v m="$(column_median "$variant" 4)" -v r="$(joined "$private_dir/$variant.times")" \
        'BEGIN { printf "| %s | %.3f s | %.2f s | %.2f s | %s |\n", v == "plain" ? "plain" : "--replica (heartbeat + lag checks)", w, c, m, r }'
  done
  echo
  awk -v p="$(column_median plain 1)" -v r="$(column_median replica 1)" \
      'BEGIN { printf "Overhead of the wall time: %+.1f%% (goal: < 3%%).\n", (r / p - 1) * 100 }'
} | tee "$results"

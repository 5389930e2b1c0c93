#!/usr/bin/env bash
# What exactly-once costs: `rowpump backfill` of the 1M-row sysbench table into a queue, without and with
# --job-id (each page then also moves its range's checkpoint, in the same MULTI/EXEC or MySQL transaction),
# for the Redis list sink and the MySQL queue-table sink.
#
# Per sink, BENCH_RUNS rounds; each round runs both variants, the order alternating between rounds so a
# burst of load from elsewhere hits both alike. Every run starts from an empty queue and a fresh job id
# (queue and job state are deleted after each run). Prints, and writes to BENCH_RESULTS, a markdown table:
# median wall time of each variant, the ratio job-id / plain and the overhead in percent (goal: < 10%).
#
# Wall times on a loaded machine mostly measure the CPU share the runs got: the script refuses to run
# while the 1-minute load average is above BENCH_MAX_LOAD (default: the number of cores), unless
# BENCH_FORCE=1, and records the load (uptime) before and after in the results.
#
#   eval "$(scripts/services.sh env)"
#   bench/checkpoint_overhead.sh                      # uses build/rowpump
#   ROWPUMP_BIN=build-bench/rowpump bench/checkpoint_overhead.sh
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump),
# BENCH_RUNS (3), BENCH_SINKS ("redis mysql"), BENCH_WORKERS (rowpump's default when unset),
# BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS (bench/results/checkpoint_overhead.md),
# BENCH_TABLE (sbtest1; another table of the database, e.g. a small one to try the script out).
# sbtest1 is created first by bench/sysbench_table.sh (a no-op when it is there).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 3 count)"
sinks="$(setting BENCH_SINKS "redis mysql" sinks)"
workers="$(setting BENCH_WORKERS "" optional-count)"
table="$(setting BENCH_TABLE sbtest1 name)"
results_file checkpoint_overhead

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli

refuse_when_loaded "$cores"

[[ "$table" != sbtest1 ]] || "$root/bench/sysbench_table.sh"

# The clients get the connections through private files, rowpump its sink URLs without their passwords
# (those go in password files): no password on a command line.
make_private_dir rp_bench_ckpt
mysql_connection
redis_connection
rowpump_password_files

rows="$(sql "SELECT COUNT(*) FROM $table")"
queue_name() { if [[ "$1" == redis ]]; then echo "rp_bench:ckpt:$$"; else echo "rp_bench_ckpt_$$"; fi; }
sink_uri() { if [[ "$1" == redis ]]; then echo "$redis_sink"; else echo "$mysql_sink"; fi; }

# Deletes the queue and the job's state (both stores; the job tables may not exist yet).
clean() {
  local sink="$1" job_id="$2" queue
  queue="$(queue_name "$sink")"
  if [[ "$sink" == redis ]]; then
    redis UNLINK "$queue" >/dev/null
  else
    sql "DROP TABLE IF EXISTS \`$queue\`"
  fi
  if [[ -n "$job_id" ]]; then
    redis --scan --pattern "rowpump:job:$job_id:*" | while read -r key; do redis DEL "$key" >/dev/null; done
    local tables
    tables="$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND
                   TABLE_NAME IN ('rowpump_jobs', 'rowpump_job_ranges')")"
    if [[ "$tables" == 2 ]]; then
      sql "DELETE FROM rowpump_job_ranges WHERE job_id = '$job_id'; DELETE FROM rowpump_jobs WHERE job_id = '$job_id'"
    fi
  fi
}

queue_length() {
  local queue
  queue="$(queue_name "$1")"
  if [[ "$1" == redis ]]; then redis LLEN "$queue"; else sql "SELECT COUNT(*) FROM \`$queue\`"; fi
}

# Runs one backfill from an empty queue, checks every row arrived, records the wall time in
# $private_dir/<sink>.<variant>.times and cleans up.
timed_run() {
  local sink="$1" variant="$2" round="$3" job_id="" queue started ended count
  queue="$(queue_name "$sink")"
  local args=(-q backfill --table "$table" --sink "$(sink_uri "$sink")" --queue "$queue")
  [[ -z "$workers" ]] || args+=(--workers "$workers")
  if [[ "$variant" == job ]]; then
    job_id="rp_bench_ckpt_$$_${sink}_$round"
    args+=(--job-id "$job_id")
  fi
  clean "$sink" "$job_id"
  started="$(date +%s.%N)"
  if ! "$rowpump_bin" "${args[@]}" >/dev/null 2>"$private_dir/run.log"; then
    log "$sink/$variant run $round failed:"
    sed 's/^/  /' "$private_dir/run.log" >&2
    clean "$sink" "$job_id"
    exit 1
  fi
  ended="$(date +%s.%N)"
  count="$(queue_length "$sink")"
  clean "$sink" "$job_id"
  [[ "$count" == "$rows" ]] || { log "$sink/$variant run $round left $count rows in the queue, expected $rows"; exit 1; }
  awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.3f\n", b - a }' | tee -a "$private_dir/$sink.$variant.times"
}

log "$rows rows of $db_name.$table; load $load_before on $cores cores; $runs rounds per sink"
for sink in $sinks; do
  for round in $(seq 1 "$runs"); do
    if (( round % 2 )); then order="plain job"; else order="job plain"; fi
    for variant in $order; do
      # An assignment, so a failed run stops the script (set -e) instead of vanishing inside the log line.
      seconds="$(timed_run "$sink" "$variant" "$round")"
      log "$sink round $round $variant: $seconds s"
    done
  done
done
uptime_after="$(uptime_line)"

{
  echo "# Checkpoint overhead: \`rowpump backfill\` with and without \`--job-id\`"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); rowpump $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?');"
  echo "$(uname -sr), $cores cores; $rows rows of \`$table\`, JSON payloads, default page size,"
  echo "${workers:-default} workers. Produced by \`bench/checkpoint_overhead.sh\`."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "Each run starts from an empty queue (and a fresh job id); $runs runs per variant, alternating order."
  echo "Wall time of the whole command, in seconds; overhead = job-id median / plain median - 1 (goal: < 10%)."
  echo
  echo "| sink | plain (median) | --job-id (median) | ratio | overhead | plain runs | --job-id runs |"
  echo "|---|---|---|---|---|---|---|"
  for sink in $sinks; do
    plain="$(median "$private_dir/$sink.plain.times")"
    job="$(median "$private_dir/$sink.job.times")"
    awk -v s="$sink" -v p="$plain" -v j="$job" -v pr="$(joined "$private_dir/$sink.plain.times")" \
        -v jr="$(joined "$private_dir/$sink.job.times")" \
        'BEGIN { printf "| %s | %.2f s | %.2f s | %.3f | %+.1f%% | %s | %s |\n", s, p, j, j / p, (j / p - 1) * 100, pr, jr }'
  done
} >"$private_dir/results.md"
cat "$private_dir/results.md"
mkdir -p "$(dirname "$results")"
cp "$private_dir/results.md" "$results"
log "written to $results"

#!/usr/bin/env bash
# Work stealing with a job id (issue 11, item 2): `rowpump backfill --job-id J --workers 4 --partitions 2` of
# a skewed BIGINT table into a queue, BENCH_RUNS times, each run a fresh job and an empty queue. Two ranges
# for four workers: the two idle ones can only work by splitting the others' remainders in the job store.
# Reads when each worker's last range ended (its -v line "worker done after ..., the last one ending at S
# s") and the summary's splits, and checks that
# the queue holds every row. Prints a markdown report to stdout; the goal is the four workers finishing
# within 20% of each other's time (slowest / fastest <= 1.2) with splits > 0.
#
#   ROWPUMP_BIN=build/rowpump bench/steal_balance.sh > bench/results/steal_balance.md
#
# The table, rp_bench_steal_skew (made if missing, dropped at the end unless BENCH_KEEP_TABLES=1):
# BENCH_ROWS rows (default 1M), 99% of them with the keys 1..0.99 N, the rest spread 10^7 apart, so 99% of
# the rows sit in about 0.001% of the key's span (as partition_cost.sh's 5M-row skew table; BENCH_ROWS=5000000
# builds that size, whose queue takes about 0.4 GB in Redis).
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL, ROWPUMP_BIN (build/rowpump), BENCH_RUNS (3),
# BENCH_ROWS (1000000), BENCH_SINKS ("redis"; "redis mysql" for both stores), BENCH_MAX_LOAD (nproc) /
# BENCH_FORCE (0).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 3 count)"
rows="$(setting BENCH_ROWS 1000000 '^[1-9][0-9]{2,}$' "at least 100")"
sinks="$(setting BENCH_SINKS redis sinks)"
require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
make_private_dir rp_bench_steal
mysql_connection
redis_connection
rowpump_password_files
refuse_when_loaded "$cores"

table=rp_bench_steal_skew
created=0
queue_name() { if [[ "$1" == redis ]]; then echo "rp_bench:steal:$$"; else echo "rp_bench_steal_$$"; fi; }
sink_uri() { if [[ "$1" == redis ]]; then echo "$redis_sink"; else echo "$mysql_sink"; fi; }

# Deletes the queue and the job's state in both stores (the job tables may not exist).
clean() {
  local sink="$1" job_id="$2"
  if [[ "$sink" == redis ]]; then redis UNLINK "$(queue_name redis)" >/dev/null; else sql "DROP TABLE IF EXISTS \`$(queue_name mysql)\`"; fi
  redis --scan --pattern "rowpump:job:$job_id:*" | while read -r key; do redis DEL "$key" >/dev/null; done
  if [[ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND
                TABLE_NAME IN ('rowpump_jobs', 'rowpump_job_ranges')")" == 2 ]]; then
    sql "DELETE FROM rowpump_job_ranges WHERE job_id = '$job_id'; DELETE FROM rowpump_jobs WHERE job_id = '$job_id'"
  fi
}
queued() {
  if [[ "$1" == redis ]]; then redis LLEN "$(queue_name redis)"; else sql "SELECT COUNT(*) FROM \`$(queue_name mysql)\`"; fi
}
cleanup() {
  for sink in $sinks; do clean "$sink" "rp_bench_steal_$$_$sink" || true; done
  if [[ "${BENCH_KEEP_TABLES:-0}" != 1 && "$created" == 1 ]]; then sql "DROP TABLE IF EXISTS $table" || true; fi
  rm -rf "$private_dir"
}
trap cleanup EXIT

if [[ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '$table'")" == 1 &&
      "$(sql "SELECT COUNT(*) FROM $table")" != "$rows" ]]; then
  sql "DROP TABLE $table"
fi
if [[ "$(sql "SHOW TABLES LIKE '$table'")" != "$table" ]]; then
  log "creating $table ($rows rows)"
  created=1
  dense=$((rows * 99 / 100))
  sql "CREATE TABLE $table (id BIGINT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
       INSERT INTO $table SELECT seq, seq FROM seq_1_to_$dense;
       INSERT INTO $table SELECT 10000000 * seq, seq FROM seq_1_to_$((rows - dense));
       ANALYZE TABLE $table" >/dev/null
fi

echo "# Work stealing with a job id (issue 11, item 2)"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $("$rowpump_bin" --version 2>/dev/null | head -1), repository at $(git -C "$root" rev-parse --short HEAD);"
echo "$(uname -sr), $(nproc) cores; MariaDB $(sql 'SELECT VERSION()'). Produced by \`bench/steal_balance.sh\`."
echo
echo "Load (uptime) before: \`$uptime_before\`."
echo
echo "\`rowpump backfill --job-id J --workers 4 --partitions 2\` of \`$table\` ($rows rows, 99% of them in about 0.001%"
echo "of the key's span), a fresh job and an empty queue each run. Each worker's time is from its start to the"
echo "end of its last range (its \`-v\` line \"worker done after ...\"); the goal is slowest / fastest <= 1.2 with splits > 0."
echo
echo "| sink | run | wall s | workers' times, s | slowest / fastest | splits | ranges | rows in the queue |"
echo "|---|---|---|---|---|---|---|---|"
for sink in $sinks; do
  for ((run = 1; run <= runs; run++)); do
    job_id="rp_bench_steal_$$_$sink"
    clean "$sink" "$job_id"
    start="$(date +%s%N)"
    "$rowpump_bin" -v backfill --table "$table" --sink "$(sink_uri "$sink")" --queue "$(queue_name "$sink")" \
      --job-id "$job_id" --workers 4 --partitions 2 2>"$private_dir/err"
    end="$(date +%s%N)"
    times="$(sed -n 's/.*worker done after .*, the last one ending at \([0-9.]*\) s$/\1/p' "$private_dir/err" | sort -n)"
    read -r ranges splits <<<"$(sed -n 's/.*, \([0-9]*\) ranges, \([0-9]*\) splits$/\1 \2/p' "$private_dir/err")"
    ratio="$(awk 'NR == 1 { low = $1 } { high = $1 } END { if (low > 0) printf "%.2f", high / low; else printf "a worker read nothing" }' <<<"$times")"
    in_queue="$(queued "$sink")"
    echo "| $sink | $run | $(awk -v n=$((end - start)) 'BEGIN { printf "%.2f", n / 1e9 }') | $(paste -sd' ' <<<"$times" | sed 's/ /, /g') | $ratio | $splits | $ranges | $in_queue |"
    log "$sink run $run: workers $(paste -sd' ' <<<"$times"), $splits splits, $in_queue rows queued"
    [[ "$in_queue" == "$rows" ]] || log "the queue holds $in_queue rows, the table $rows"
  done
  clean "$sink" "rp_bench_steal_$$_$sink"
done
echo
echo "Load (uptime) after: \`$(uptime_line)\`."

#!/usr/bin/env bash
# Issue 30's ActiveJob benchmark: enqueue a table as Rails ActiveJob jobs on Sidekiq. rowpump backfill
# --format activejob against ActiveJob itself, JOB_CLASS.perform_later(row) in a loop (ActiveJob 6.1 has no
# perform_all_later), fed with the same rows loaded from MariaDB in batches of 1000 by the mysql2 gem
# (bench/peers/activejob_perform_later.rb). Both write the same jobs (Sidekiq's JobWrapper around the
# serialized ActiveJob, the row its one argument) into the same Redis list, queue:QUEUE. Goal: rowpump at
# least 10x perform_later's rows/s. The issue's size is 1M rows; the Ruby loop takes minutes for that, so
# the default here is ROWS=50000 (the first 50,000 rows of sbtest1), which runs in about 2 minutes.
#
# A warm-up run of each (not counted), then BENCH_RUNS rounds, the order alternating each round; medians.
# Every run is checked: the list must hold exactly the table's rows, and its first job must have the keys
# Sidekiq's client writes, in its order. Per run (bench/lib/measure.sh): wall seconds, the client's
# user+sys CPU and peak RSS (GNU time), the MariaDB and Redis servers' CPU (/proc/PID/stat).
#
#   eval "$(scripts/services.sh env)"
#   ROWPUMP_BIN=build/rowpump bench/activejob_vs_perform_later.sh                      # 50,000 rows
#   ROWS=0 ROWPUMP_BIN=build/rowpump bench/activejob_vs_perform_later.sh               # sbtest1, 1M rows
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), ROWS /
# BENCH_ROWS (50000: rp_bench_sbtest_small, the first N rows of sbtest1; 0: the whole sbtest1),
# BENCH_RUNS (3), BENCH_SIDEKIQ_DB (13: Sidekiq's fixed key names, such as `queues`, stay out of the
# queue's own database), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS
# (bench/results/activejob.md), BENCH_MARIADB_PID and BENCH_REDIS_PID. Needs ruby-sidekiq, ruby-activejob
# and ruby-mysql2 (scripts/setup.sh --bench). Everything it creates is named rp_bench_* and removed at the end.
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
runs="$(setting BENCH_RUNS 3 count)"
small_table_rows 50000
sidekiq_db="$(setting BENCH_SIDEKIQ_DB 13 whole)"
BENCH_RESULTS="${BENCH_RESULTS:-$root/bench/results/activejob.md}"
export BENCH_RESULTS
source "$root/bench/lib/sidekiq_jobs.sh"
sidekiq_jobs_setup activejob 'require "mysql2"; require "sidekiq"; require "active_job"' \
  "ruby needs sidekiq, activejob and mysql2 (Debian: ruby-sidekiq, ruby-activejob, ruby-mysql2; scripts/setup.sh --bench)"

sidekiq_keys='retry,queue,class,wrapped,args,jid,created_at,enqueued_at'
activejob_keys='job_class,job_id,provider_job_id,queue_name,priority,arguments,executions,exception_executions,locale,timezone,enqueued_at'
row_keys='id,k,c,pad,_aj_symbol_keys'
check_jobs() {
  local length keys want
  length="$(redis LLEN "queue:$queue")"
  [[ "$length" == "$rows" ]] || fail "$1 left $length jobs in queue:$queue, expected $rows"
  keys="$(redis LINDEX "queue:$queue" 0 | ruby -rjson -e 'job = JSON.parse(STDIN.read); aj = job["args"][0]; print job.keys.join(","), " ", aj.keys.join(","), " ", aj["arguments"][0].keys.join(",")')"
  want="$sidekiq_keys $activejob_keys $row_keys"
  [[ "$keys" == "$want" ]] || fail "$1 wrote a job with the keys $keys, expected $want"
}
run() { sidekiq_jobs_run "$1" activejob activejob_perform_later.rb; }

names=(rowpump perform_later)
rotating_rounds "" run run "${names[@]}"

ratio_verdict rowpump perform_later 10

mkdir -p "$(dirname "$results")"
{
  echo "# Enqueueing a table as ActiveJob jobs on Sidekiq: rowpump against perform_later (issue 30)"
  echo
  build_line
  echo "$(servers_line),"
  echo "$(ruby -e 'print "Ruby #{RUBY_VERSION}"'), $(ruby -rsidekiq -rmysql2 -ractive_job -e 'print "Sidekiq #{Sidekiq::VERSION}, ActiveJob #{ActiveJob.version}, mysql2 #{Mysql2::VERSION}"').  Produced by \`bench/activejob_vs_perform_later.sh\`; servers and tools on the same machine."
  ((small_rows == 0)) || echo "**$small_rows rows** (\`$table\`, the first $small_rows rows of sbtest1), not the issue's 1M: the Ruby loop would take minutes a run at 1M."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "A warm-up run of each, then $runs round(s), the order alternating each round; medians. Every run is checked to"
  echo "leave exactly $rows jobs in \`queue:QUEUE\`, the first with Sidekiq's, ActiveJob's and the row's keys in their order. Client CPU ="
  echo "user+sys of the command (GNU time); MariaDB and Redis CPU = utime+stime of each server's /proc/PID/stat over"
  echo "the run; floor = (client + MariaDB + Redis CPU) / $cores cores. Peak RSS: the largest of the runs."
  echo
  echo "| tool | rows | wall s | rows/s | client CPU s | MariaDB CPU s | Redis CPU s | floor s | peak RSS MB | runs, wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  measured_row "\`rowpump backfill --format activejob --job-class $job_class\` (default workers: $cores)" rowpump
  measured_row "\`ruby bench/peers/activejob_perform_later.rb\` (mysql2, 1000-row batches, \`perform_later\` per row)" perform_later
  echo
  echo "## Goal (issue 30)"
  echo
  echo "| goal | measured | |"
  echo "|---|---|---|"
  echo "| rowpump rows/s / perform_later's >= 10 | $ratio | $verdict |"
} >"$results"
log "results in $results: rowpump $(rows_per_s rowpump) rows/s, perform_later $(rows_per_s perform_later) rows/s, ${ratio}x"

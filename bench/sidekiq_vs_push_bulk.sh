#!/usr/bin/env bash
# Issue 14's benchmark: enqueue a table as Sidekiq jobs. rowpump backfill --format sidekiq against
# Sidekiq's own client, Sidekiq::Client.push_bulk from Ruby, fed with the same rows loaded from MariaDB in
# batches of 1000 by the mysql2 gem (bench/peers/sidekiq_push_bulk.rb). Both write the same jobs (one
# argument: the row as a hash keyed by column name) into the same Redis list, queue:QUEUE. Goal: rowpump at
# least 3x push_bulk's rows/s.
#
# A warm-up run of each (not counted), then BENCH_RUNS rounds, the order alternating each round; medians.
# Every run is checked: the list must hold exactly the table's rows, and its first job must have the keys
# Sidekiq's client writes, in its order. Per run (bench/lib/measure.sh): wall seconds, the client's
# user+sys CPU and peak RSS (GNU time), the MariaDB and Redis servers' CPU (/proc/PID/stat).
#
#   eval "$(scripts/services.sh env)"
#   ROWPUMP_BIN=build/rowpump bench/sidekiq_vs_push_bulk.sh                       # sbtest1, 1M rows
#   ROWS=50000 BENCH_RUNS=1 ROWPUMP_BIN=build/rowpump bench/sidekiq_vs_push_bulk.sh  # a quick check
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), ROWS /
# BENCH_ROWS (0: the whole sbtest1; N: rp_bench_sbtest_small, its first N rows, results under /tmp unless
# BENCH_RESULTS says otherwise), BENCH_RUNS (3), BENCH_SIDEKIQ_DB (13: Sidekiq's fixed key names, such as
# `queues`, stay out of the queue's own database), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS
# (bench/results/sidekiq_vs_push_bulk.md), BENCH_MARIADB_PID and BENCH_REDIS_PID. Needs ruby-sidekiq and
# ruby-mysql2 (scripts/setup.sh --bench). Everything it creates is named rp_bench_* and removed at the end.
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
runs="$(setting BENCH_RUNS 3 count)"
small_rows="$(small_mode_rows)"
sidekiq_db="$(setting BENCH_SIDEKIQ_DB 13 whole)"
source "$root/bench/lib/sidekiq_jobs.sh"
sidekiq_jobs_setup sidekiq_vs_push_bulk 'require "mysql2"; require "sidekiq"' \
  "ruby needs the sidekiq and mysql2 gems (Debian: ruby-sidekiq, ruby-mysql2; scripts/setup.sh --bench)"

sidekiq_keys='retry,queue,class,args,jid,created_at,enqueued_at'
check_jobs() {
  local length keys
  length="$(redis LLEN "queue:$queue")"
  [[ "$length" == "$rows" ]] || fail "$1 left $length jobs in queue:$queue, expected $rows"
  keys="$(redis LINDEX "queue:$queue" 0 | ruby -rjson -e 'job = JSON.parse(STDIN.read); print job.keys.join(","), " ", job["args"][0].keys.join(",")')"
  [[ "$keys" == "$sidekiq_keys id,k,c,pad" ]] || fail "$1 wrote a job with the keys $keys, expected $sidekiq_keys id,k,c,pad"
}
run() { sidekiq_jobs_run "$1" sidekiq sidekiq_push_bulk.rb; }

names=(rowpump push_bulk)
rotating_rounds "" run run "${names[@]}"

ratio_verdict rowpump push_bulk 3

mkdir -p "$(dirname "$results")"
{
  echo "# Enqueueing a table as Sidekiq jobs: rowpump against Sidekiq's push_bulk (issue 14)"
  echo
  build_line
  echo "$(servers_line),"
  echo "$(ruby -e 'print "Ruby #{RUBY_VERSION}"'), $(ruby -rsidekiq -rmysql2 -e 'print "Sidekiq #{Sidekiq::VERSION}, mysql2 #{Mysql2::VERSION}"').  Produced by \`bench/sidekiq_vs_push_bulk.sh\`; servers and tools on the same machine."
  ((small_rows == 0)) || echo "**Small mode** (ROWS=$small_rows): \`$table\`, the first $small_rows rows of sbtest1. Not the issue's size."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "A warm-up run of each, then $runs round(s), the order alternating each round; medians. Every run is checked to"
  echo "leave exactly $rows jobs in \`queue:QUEUE\`, the first with Sidekiq's keys in Sidekiq's order. Client CPU ="
  echo "user+sys of the command (GNU time); MariaDB and Redis CPU = utime+stime of each server's /proc/PID/stat over"
  echo "the run; floor = (client + MariaDB + Redis CPU) / $cores cores. Peak RSS: the largest of the runs."
  echo
  echo "| tool | rows | wall s | rows/s | client CPU s | MariaDB CPU s | Redis CPU s | floor s | peak RSS MB | runs, wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  measured_row "\`rowpump backfill --format sidekiq --job-class $job_class\` (default workers: $cores)" rowpump
  measured_row "\`ruby bench/peers/sidekiq_push_bulk.rb\` (mysql2, 1000-row batches, \`Sidekiq::Client.push_bulk\`)" push_bulk
  echo
  echo "## Goal (issue 14)"
  echo
  echo "| goal | measured | |"
  echo "|---|---|---|"
  echo "| rowpump rows/s / push_bulk's >= 3 | $ratio | $verdict |"
} >"$results"
log "results in $results: rowpump $(rows_per_s rowpump) rows/s, push_bulk $(rows_per_s push_bulk) rows/s, ${ratio}x"

#!/usr/bin/env bash
# Issue 30's BullMQ benchmark: enqueue a table as BullMQ jobs. rowpump backfill --format bullmq against
# BullMQ itself, Queue.addBulk on pages of 1000 rows that the mysql2 package reads from MariaDB
# (bench/peers/bullmq_add_bulk.js): both read the same rows from the same server and leave the same keys,
# a job hash each (name, data, opts, timestamp, delay, priority), its id in `wait`, `id`, `meta`, `events`,
# `marker`. Goal: rowpump at least 5x addBulk's rows/s. The issue's size is 1M rows (ROWS=0); a million job
# hashes take about 0.7 GB of Redis and about a minute a round with the clean-ups, so the default here is
# ROWS=100000 (the first 100,000 rows of sbtest1).
#
# Both tools write into the same redis-server, one of the script's own (bench/lib/common.sh private_redis, on
# BENCH_PORT): rowpump's wall is that server's single-threaded CPU, and on a shared server it also counts
# other sessions' commands (BENCH_SHARED_REDIS=1 uses ROWPUMP_REDIS_URL's server instead). After every
# clean-up the script waits until Redis has freed in the background what the clean-up's UNLINKs left it
# (INFO memory lazyfree_pending_objects:0) and has jemalloc return the freed pages (MEMORY PURGE), so that no
# run pays for the keys of the run before it.
#
# A warm-up run of each (not counted), then BENCH_RUNS rounds, the order alternating each round; medians.
# Every run is checked: `wait` must hold exactly the table's rows, and a job hash BullMQ's fields. Per run
# (bench/lib/measure.sh): wall seconds, the client's user+sys CPU and peak RSS (GNU time), the MariaDB and
# Redis servers' CPU (/proc/PID/stat).
#
#   eval "$(scripts/services.sh env)"
#   ROWPUMP_BIN=build/rowpump bench/bullmq_vs_addbulk.sh                  # 100,000 rows
#   ROWS=0 ROWPUMP_BIN=build/rowpump bench/bullmq_vs_addbulk.sh           # sbtest1, 1M rows
#
# Environment: ROWPUMP_MYSQL_URL (required), BENCH_SHARED_REDIS (0; 1: ROWPUMP_REDIS_URL's server, then
# required, and BENCH_REDIS_PID), BENCH_PORT (6591, the private server's), ROWPUMP_BIN (build/rowpump), ROWS /
# BENCH_ROWS (100000: rp_bench_sbtest_small, the first N rows of sbtest1; 0: the whole sbtest1), BENCH_RUNS
# (3), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS (bench/results/bullmq.md) and BENCH_MARIADB_PID.
# Needs redis-server, node and tests/workers/bullmq/node_modules (scripts/setup.sh). Everything it
# creates is named rp_bench_* and removed at the end.
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
runs="$(setting BENCH_RUNS 3 count)"
small_table_rows 100000
BENCH_RESULTS="${BENCH_RESULTS:-$root/bench/results/bullmq.md}"
results_file bullmq "$small_rows"
results="$BENCH_RESULTS"
prefix=rp_bench_bull
queue="rp_bench_bullmq_$$"
job_name=sync-row

shared_redis="$(setting BENCH_SHARED_REDIS 0 '^[01]$' '0: a private redis-server, 1: ROWPUMP_REDIS_URL')"
port="$(setting BENCH_PORT 6591 whole)"
require_env ROWPUMP_MYSQL_URL
((shared_redis == 0)) || require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli redis-server node
[[ -d "$root/tests/workers/bullmq/node_modules/bullmq" ]] ||
  { log "tests/workers/bullmq/node_modules is missing: run scripts/setup.sh"; exit 2; }

refuse_when_loaded "$cores"
ROWPUMP_REDIS_URL="${ROWPUMP_REDIS_URL:-redis://127.0.0.1:$port/0}"
connect_servers rp_bench_bullmq default-character-set=utf8mb4
if ((shared_redis == 0)); then
  private_redis "$port"
  use_private_redis
  BENCH_REDIS_PID="$private_redis_pid"
  redis_server_note="a redis-server of the script's own (port $port, no persistence, default settings), so that its CPU counts these runs alone"
else
  redis_server_note="the shared Redis of ROWPUMP_REDIS_URL (BENCH_SHARED_REDIS=1): its CPU also counts other sessions' commands"
fi
measure_setup
# The Redis CPU column must be the server both tools write into.
[[ "$shared_redis" == 1 || "$redis_pid" == "$private_redis_pid" ]] ||
  fail "measuring Redis pid $redis_pid, not the private server's $private_redis_pid"
export BENCH_MYSQL_OPTION_FILE="$client_config" BENCH_MYSQL_DATABASE="$db_name" BENCH_REDIS_URL="$redis_sink"
export BENCH_BULLMQ_PREFIX="$prefix"
[[ -z "$redis_auth" ]] || export BENCH_REDIS_PASSWORD="$redis_auth"

# Every key of the queue: a job hash a row, and BullMQ's own; UNLINKed 5,000 a command through one
# redis-cli (the names have no spaces), then settle_redis.
clear_queue() {
  redis --scan --pattern "$prefix:$queue:*" |
    awk '{ keys = keys " " $0 } NR % 5000 == 0 { print "UNLINK" keys; keys = "" } END { if (keys != "") print "UNLINK" keys }' |
    redis >/dev/null
  settle_redis 120
}
use_sbtest_table clear_queue
log "$rows rows of $db_name.$table into $redis_sink (pid $redis_pid) BullMQ queue $prefix:$queue; load $load_before on $cores cores; $runs rounds"
warm_buffer_pool

check_jobs() {
  local length first fields
  length="$(redis LLEN "$prefix:$queue:wait")"
  [[ "$length" == "$rows" ]] || fail "$1 left $length jobs in $prefix:$queue:wait, expected $rows"
  first="$(redis LINDEX "$prefix:$queue:wait" -1)"
  fields="$(redis HKEYS "$prefix:$queue:$first" | sort | paste -sd,)"
  [[ "$fields" == "data,delay,name,opts,priority,timestamp" ]] || fail "$1 wrote job $first with the fields $fields"
  [[ "$(redis HGET "$prefix:$queue:$first" name)" == "$job_name" ]] || fail "$1 wrote job $first without its name"
}
run() {
  clear_queue
  case "$1" in
    rowpump) measure "$1" "$rows" "$rowpump_bin" -q backfill --table "$table" --sink "$redis_sink" --queue "$queue" \
               --format bullmq --job-name "$job_name" --bullmq-prefix "$prefix" ;;
    addBulk) measure "$1" "$rows" node "$root/bench/peers/bullmq_add_bulk.js" "$table" "$queue" "$job_name" ;;
  esac
  check_jobs "$1"
  clear_queue
}

names=(rowpump addBulk)
rotating_rounds "" run run "${names[@]}"

speedup="$(awk -v a="$(rows_per_s rowpump)" -v b="$(rows_per_s addBulk)" 'BEGIN { printf "%.2f", a / b }')"
verdict="met"
awk -v s="$speedup" 'BEGIN { exit !(s >= 5) }' || verdict="**not met**"

mkdir -p "$(dirname "$results")"
{
  echo "# Enqueueing a table as BullMQ jobs: rowpump against Queue.addBulk (issue 30)"
  echo
  build_line
  echo "$(servers_line), Node $(node --version), BullMQ $(node -p "require('$root/tests/workers/bullmq/node_modules/bullmq/package.json').version"), mysql2 $(node -p "require('$root/tests/workers/bullmq/node_modules/mysql2/package.json').version").  Produced by \`bench/bullmq_vs_addbulk.sh\`; servers and tools on the same machine."
  ((small_rows == 0)) || echo "**$small_rows rows** (\`$table\`, the first $small_rows rows of sbtest1), not the issue's 1M: a million job hashes take about 0.7 GB of Redis, and the rounds would hold the machine for minutes."
  echo
  echo "Redis: $redis_server_note."
  echo "After every clean-up (UNLINK of the queue's keys) the script waits until Redis reports its background"
  echo "freeing done (\`lazyfree_pending_objects:0\`), then runs \`MEMORY PURGE\` (jemalloc returns the freed pages"
  echo "then, not on its background thread during the next run), so that no run pays for the last one's keys."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "A warm-up run of each, then $runs round(s), the order alternating each round; medians. Every run is checked to"
  echo "leave exactly $rows job ids in \`wait\`, and a job hash with BullMQ's fields and the job's name. Client CPU ="
  echo "user+sys of the command (GNU time); MariaDB and Redis CPU = utime+stime of each server's /proc/PID/stat over"
  echo "the run (Redis: pid $redis_pid, the server both tools wrote into); floor = (client + MariaDB + Redis CPU) / $cores cores. Peak RSS: the largest of the runs."
  echo
  echo "| tool | rows | wall s | rows/s | client CPU s | MariaDB CPU s | Redis CPU s | floor s | peak RSS MB | runs, wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  measured_row "\`rowpump backfill --format bullmq --job-name $job_name\` (default workers: $cores)" rowpump
  measured_row "\`node bench/peers/bullmq_add_bulk.js\` (mysql2, 1000-row pages, one \`Queue.addBulk\` a page)" addBulk
  echo
  echo "## Goal (issue 30)"
  echo
  echo "| goal | measured | |"
  echo "|---|---|---|"
  echo "| rowpump rows/s / addBulk's >= 5 | $speedup | $verdict |"
  echo
  echo "## Where the time goes"
  echo
  echo "Redis CPU a job: rowpump $(awk -v r="$(median_of rowpump 5)" -v n="$rows" 'BEGIN { printf "%.1f", r * 1e6 / n }') µs, addBulk $(awk -v r="$(median_of addBulk 5)" -v n="$rows" 'BEGIN { printf "%.1f", r * 1e6 / n }') µs;"
  echo "client CPU a job: rowpump $(awk -v r="$(median_of rowpump 3)" -v n="$rows" 'BEGIN { printf "%.1f", r * 1e6 / n }') µs, addBulk $(awk -v r="$(median_of addBulk 3)" -v n="$rows" 'BEGIN { printf "%.1f", r * 1e6 / n }') µs."
  echo "addBulk is bound by its Node client (msgpack, a Job object and an EVALSHA a job); rowpump by Redis, which is"
  echo "single-threaded: its wall is about its Redis CPU. A BullMQ job is a hash, two or three entries in the"
  echo "\`events\` stream (added, then waiting or delayed) and an id in \`wait\`, whoever writes it: rowpump's one"
  echo "script a page saves BullMQ's per-job script call, msgpack decoding and meta reads, not those writes. On this"
  echo "shared 2-core machine the ratio moves between runs of this script: compare the rounds above."
} >"$results"
log "results in $results: rowpump $(rows_per_s rowpump) rows/s, addBulk $(rows_per_s addBulk) rows/s, ${speedup}x"

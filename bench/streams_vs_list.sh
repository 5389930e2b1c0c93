#!/usr/bin/env bash
# Issue 30's stream benchmark: a table into a Redis stream (`rowpump backfill --push xadd`, one XADD an entry,
# pipelined per page) against the same table into a Redis list (the default RPUSH, variadic). Same rows, same
# payloads (the JSON row), same workers. Goal: the stream at least 0.7x the list's rows/s.
#
# A warm-up run of each (not counted), then BENCH_RUNS rounds, the order alternating each round; medians.
# Every run is checked: the list or the stream must hold exactly the table's rows. Per run
# (bench/lib/measure.sh): wall seconds, the client's user+sys CPU and peak RSS (GNU time), the MariaDB and
# Redis servers' CPU (/proc/PID/stat). Before each run Redis has freed the keys of the run before and handed
# the pages back (lib/common.sh settle_redis), so that every run pays alike for the memory it fills: on this
# kind of virtual machine a run into pages Redis kept was up to twice as cheap for it as one into new pages.
#
#   eval "$(scripts/services.sh env)"
#   ROWPUMP_BIN=build/rowpump bench/streams_vs_list.sh                        # sbtest1, 1M rows
#   ROWS=200000 BENCH_RUNS=3 ROWPUMP_BIN=build/rowpump bench/streams_vs_list.sh  # its first 200k rows
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), ROWS /
# BENCH_ROWS (0: the whole sbtest1; N: rp_bench_sbtest_small, its first N rows, results under /tmp unless
# BENCH_RESULTS says otherwise), BENCH_RUNS (3), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS
# (bench/results/streams_vs_list.md), BENCH_MARIADB_PID and BENCH_REDIS_PID. Everything it creates is named
# rp_bench_* and removed at the end.
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
runs="$(setting BENCH_RUNS 3 count)"
small_rows="$(small_mode_rows)"
results_file streams_vs_list "$small_rows"
list="rp_bench_list_$$"
stream="rp_bench_stream_$$"

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli

refuse_when_loaded "$cores"
connect_servers rp_bench_streams default-character-set=utf8mb4
measure_setup

clear_keys() { redis UNLINK "$list" "$stream"; }
use_sbtest_table clear_keys
log "$rows rows of $db_name.$table into $redis_sink: list $list against stream $stream; load $load_before on $cores cores; $runs rounds"
warm_buffer_pool

check() {  # NAME KEY COUNT_COMMAND
  local length
  length="$(redis "$3" "$2")"
  [[ "$length" == "$rows" ]] || fail "$1 left $length entries in $2, expected $rows"
}
run() {
  redis UNLINK "$list" "$stream" >/dev/null
  settle_redis 60
  case "$1" in
    list) measure "$1" "$rows" "$rowpump_bin" -q backfill --table "$table" --sink "$redis_sink" --queue "$list"
          check list "$list" LLEN ;;
    stream) measure "$1" "$rows" "$rowpump_bin" -q backfill --table "$table" --sink "$redis_sink" --queue "$stream" \
              --push xadd
            check stream "$stream" XLEN ;;
  esac
  redis UNLINK "$list" "$stream" >/dev/null
}

names=(stream list)
rotating_rounds "" run run "${names[@]}"

ratio_verdict stream list 0.7

mkdir -p "$(dirname "$results")"
{
  echo "# A table into a Redis stream against a Redis list (issue 30)"
  echo
  build_line
  echo "$(servers_line)."
  echo "Produced by \`bench/streams_vs_list.sh\`; servers and client on the same machine."
  ((small_rows == 0)) || echo "**Small mode** (ROWS=$small_rows): \`$table\`, the first $small_rows rows of sbtest1. Not the issue's size."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "A warm-up run of each, then $runs round(s), the order alternating each round; medians. Every run is checked to"
  echo "leave exactly $rows entries in the list (LLEN) or the stream (XLEN). Client CPU = user+sys of the command (GNU"
  echo "time); MariaDB and Redis CPU = utime+stime of each server's /proc/PID/stat over the run; floor = (client +"
  echo "MariaDB + Redis CPU) / $cores cores. Peak RSS: the largest of the runs."
  echo
  echo "| sink | rows | wall s | rows/s | client CPU s | MariaDB CPU s | Redis CPU s | floor s | peak RSS MB | runs, wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  measured_row "\`--push xadd\`: a stream, one XADD an entry (default workers: $cores)" stream
  measured_row "the default: a list, variadic RPUSH (default workers: $cores)" list
  echo
  echo "## Goal (issue 30)"
  echo
  echo "| goal | measured | |"
  echo "|---|---|---|"
  echo "| stream rows/s / list's >= 0.7 | $ratio | $verdict |"
} >"$results"
log "results in $results: stream $(rows_per_s stream) rows/s, list $(rows_per_s list) rows/s, ${ratio}x"

#!/usr/bin/env bash
# Issue 28's pipeline benchmark: a backfill filling a Redis list while `rowpump queue consume --pipe` no-op
# handlers drain it, against the same backfill alone. Three items, order rotating each round:
#   fill        rowpump backfill of the table into the list, nothing draining it
#   fill_drain  the same backfill with the consumer already running (PHP no-op handler, --concurrency 2)
#   fill_hw     the same, the backfill held by --high-water HIGH_WATER
# A drained item ends when the consumer has done every task: once the backfill has exited and the list is
# empty, the consumer gets a SIGTERM, finishes the tasks in hand and prints how many it did, which must be
# the table's rows. End to end = rows / (the consumer's end - the backfill's start). The list's depth is
# sampled every 20 ms meanwhile (its peak, and the deepest it got while --high-water held it).
# Per process: the backfill's and the consumer's CPU (with its handlers) and peak RSS from GNU time, MariaDB's
# and Redis's CPU from /proc/PID/stat. Goal: end to end at least 0.7x the fill alone.
#
#   eval "$(scripts/services.sh env)"
#   ROWPUMP_BIN=build/rowpump bench/fill_and_drain.sh
#   ROWS=100000 BENCH_RUNS=1 ROWPUMP_BIN=build/rowpump bench/fill_and_drain.sh   # a quick check
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), ROWS (0: all
# of sbtest1, 1M), HIGH_WATER (100000), BENCH_RUNS (3), BENCH_QUEUE_DB (13), BENCH_MAX_LOAD (nproc),
# BENCH_FORCE (0), BENCH_RESULTS (bench/results/fill_and_drain.md). Needs php (scripts/setup.sh).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 3 count)"
small_rows="$(setting ROWS 0 whole)"
high_water="$(setting HIGH_WATER 100000 count)"
queue_db="$(setting BENCH_QUEUE_DB 13 whole)"
results_file fill_and_drain "$small_rows"
queue="rp_bench_fill_drain_$$"
handler="php $root/bench/peers/noop_handler.php"

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli php
time_bin=/usr/bin/time
[[ -x "$time_bin" ]] || fail "$time_bin is missing: install the Debian package time (scripts/setup.sh --bench)"

refuse_when_loaded "$(nproc)"
connect_servers rp_bench_fill_drain
use_redis_db "$queue_db"
mariadb_pid="$(server_pid mariadb)"
redis_pid="$(server_pid redis)"
[[ -n "$mariadb_pid" && -n "$redis_pid" ]] || fail "the pids of the local MariaDB and Redis are not known (scripts/services.sh)"
hz="$(getconf CLK_TCK)"

cleanup() {
  local status=$?
  trap - EXIT
  [[ -z "${consumer_pid:-}" ]] || pkill -TERM -P "$consumer_pid" 2>/dev/null || true
  [[ -z "${sampler_pid:-}" ]] || kill "$sampler_pid" 2>/dev/null || true
  redis UNLINK "$queue" >/dev/null 2>&1 || true
  [[ "$small_rows" == 0 ]] || sql "DROP TABLE IF EXISTS rp_bench_sbtest_small" 2>/dev/null || true
  rm -rf "$private_dir"
  exit "$status"
}
clean_up_on_exit cleanup

sbtest_table "$small_rows"
log "$rows rows of $db_name.$table into $queue (db $queue_db); high water $high_water; $runs rounds"
now() { date +%s.%N; }

# sample_depth FILE: the list's length every 20 ms, one line each, until killed.
sample_depth() { while :; do redis LLEN "$queue" >>"$1"; sleep 0.02; done; }

# run NAME: one measured run; appends to NAME.times:
#   end_to_end_s fill_s fill_cpu fill_rss_kb consumer_cpu consumer_rss_kb mariadb_cpu redis_cpu peak_depth
run() {
  local name="$1" fill_args=() m0 r0 m1 r1 started filled ended done_line
  redis UNLINK "$queue" >/dev/null
  : >"$private_dir/depth"
  [[ "$name" != fill_hw ]] || fill_args=(--high-water "$high_water")
  if [[ "$name" != fill ]]; then
    "$time_bin" -o "$private_dir/consumer.time" -f '%M %U %S' "$rowpump_bin" queue consume --source "$redis_db_url" \
      --queue "$queue" --pipe "$handler" --concurrency 2 --log-interval 0 2>"$private_dir/consumer.err" &
    consumer_pid=$!
    # Started when its first line says it consumes: its start-up is not part of the figure.
    until grep -q "consuming queue" "$private_dir/consumer.err"; do
      kill -0 "$consumer_pid" 2>/dev/null || { cat "$private_dir/consumer.err" >&2; fail "the consumer did not start"; }
      sleep 0.01
    done
  fi
  sample_depth "$private_dir/depth" &
  sampler_pid=$!
  m0="$(cpu_ticks "$mariadb_pid")"; r0="$(cpu_ticks "$redis_pid")"
  started="$(now)"
  "$time_bin" -o "$private_dir/fill.time" -f '%M %U %S' "$rowpump_bin" -q backfill --table "$table" \
    --sink "$redis_db_url" --queue "$queue" "${fill_args[@]}" >/dev/null 2>"$private_dir/fill.err" ||
    { cat "$private_dir/fill.err" >&2; fail "$name: the backfill failed"; }
  filled="$(now)"
  if [[ "$name" == fill ]]; then
    ended="$filled"
    [[ "$(redis LLEN "$queue")" == "$rows" ]] || fail "fill: the list holds $(redis LLEN "$queue") tasks, not $rows"
  else
    while [[ "$(redis LLEN "$queue")" != 0 ]]; do sleep 0.01; done
    # The signal goes to rowpump, not to GNU time around it (time would die of it and leave rowpump on).
    kill -TERM "$(pgrep -P "$consumer_pid" -x rowpump)"
    wait "$consumer_pid" || fail "$name: the consumer ended with $?"
    ended="$(now)"
    consumer_pid=""
    done_line="$(grep -o "[0-9]* done" "$private_dir/consumer.err" | tail -n1)"
    [[ "$done_line" == "$rows done" ]] || { cat "$private_dir/consumer.err" >&2; fail "$name: the consumer did '$done_line', not $rows"; }
  fi
  m1="$(cpu_ticks "$mariadb_pid")"; r1="$(cpu_ticks "$redis_pid")"
  kill "$sampler_pid"; wait "$sampler_pid" 2>/dev/null || true; sampler_pid=""
  local fill_rss fill_u fill_s c_rss=0 c_u=0 c_s=0 peak
  read -r fill_rss fill_u fill_s <"$private_dir/fill.time"
  [[ "$name" == fill ]] || read -r c_rss c_u c_s <"$private_dir/consumer.time"
  peak="$(sort -n "$private_dir/depth" | tail -n1)"
  awk -v s="$started" -v f="$filled" -v e="$ended" -v fr="$fill_rss" -v fc="$fill_u+$fill_s" -v cr="$c_rss" \
      -v cu="$c_u" -v cs="$c_s" -v fu="$fill_u" -v fs="$fill_s" -v m="$((m1 - m0))" -v r="$((r1 - r0))" \
      -v hz="$hz" -v p="${peak:-0}" \
      'BEGIN { printf "%.3f %.3f %.2f %d %.2f %d %.2f %.2f %d\n", e - s, f - s, fu + fs, fr, cu + cs, cr, m / hz, r / hz, p }' \
      >>"$private_dir/$name.times"
}
last() { tail -n1 "$private_dir/$1.times" | awk '{ printf "%s s (fill %s s), peak depth %s", $1, $2, $9 }'; }

names=(fill fill_drain fill_hw)
log "warm-up run of ${names[*]}"
for name in "${names[@]}"; do run "$name"; rm -f "$private_dir/$name.times"; done
for ((round = 0; round < runs; ++round)); do
  line="round $((round + 1)):"
  for ((i = 0; i < ${#names[@]}; ++i)); do
    name="${names[(round + i) % ${#names[@]}]}"
    run "$name"
    line+=" $name $(last "$name");"
  done
  log "${line%;}"
done

rate() { awk -v n="$rows" -v w="$(column_median "$1" "${2:-1}")" 'BEGIN { printf "%.0f", n / w }'; }
fill_rate="$(rate fill)"
row() {  # LABEL NAME
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$(column_median "$2" 1)" \
    "$(column_median "$2" 2)" "$(rate "$2")" "$(awk -v a="$(rate "$2")" -v b="$fill_rate" 'BEGIN { printf "%.2f", a / b }')" \
    "$(column_median "$2" 9)" "$(column_median "$2" 3)" "$(column_median "$2" 5)" "$(column_median "$2" 7)" \
    "$(column_median "$2" 8)" "$(column_median "$2" 4)" "$(column_median "$2" 6)"
}
{
  echo "# Fill and drain at once: a backfill into a Redis list while --pipe consumers drain it"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $rows rows of $table; medians of $runs rounds, order rotating; $(nproc) cores;"
  echo "load before: $load_before; after: $(uptime_line). Consumer: \`queue consume --pipe 'php noop_handler.php' --concurrency 2\`."
  echo
  echo "| item | end to end s | backfill s | rows/s end to end | x fill alone | peak depth | backfill CPU s | consumer CPU s | MariaDB CPU s | Redis CPU s | backfill RSS KB | consumer RSS KB |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  row "backfill alone" fill
  row "backfill + consumer" fill_drain
  row "backfill --high-water $high_water + consumer" fill_hw
  echo
  echo "Goal: end to end at least 0.7x the fill alone. Each run's end to end, s: fill $(joined "$private_dir/fill.times");"
  echo "fill_drain $(joined "$private_dir/fill_drain.times"); fill_hw $(joined "$private_dir/fill_hw.times")."
} >"$results"
cat "$results"

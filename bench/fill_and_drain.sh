#!/usr/bin/env bash
# Issue 28's pipeline benchmark: a backfill filling a Redis list while `rowpump queue consume --pipe` no-op
# handlers drain it, against the same backfill alone. Items, order rotating each round:
#   fill         rowpump backfill of the table into the list, nothing draining it
#   drain        the consumer alone (PHP no-op handler, --concurrency 2) draining the full list: the list,
#                filled beforehand, is renamed onto the queue the consumer waits on
#   fill_drain   the backfill with the consumer already running (PHP no-op handler, --concurrency 2)
#   fill_hw      the same, the backfill held by --high-water HIGH_WATER
#   fill_drain_i the same as fill_drain with --inflight INFLIGHT (default 32)
#   fill_drain_c the same as fill_drain with a C handler that answers without reading its tasks
#                (bench/peers/noop_handler.c): the floor of a --pipe handler, not a PHP one
#   php_floor    the PHP handler alone, reading the 1M task lines from a file and writing to /dev/null:
#                what the two PHP processes cost at least, whatever the consumer does
# A drained item ends when the consumer has done every task: the backfill has exited, and the list and the
# consumer's processing lists are empty. Then the consumer gets a SIGTERM and prints how many it did, which
# must be the table's rows. End to end = rows / (the consumer's end - the backfill's start). The list's depth, and
# the RSS of Redis and MariaDB, are sampled every 20 ms meanwhile (the peak depth, and the deepest it got
# while --high-water held it).
# Per process: the backfill's and the consumer's CPU (with its handlers) from GNU time, MariaDB's and
# Redis's CPU from /proc/PID/stat; peak RSS: the backfill from GNU time, the consumer's rowpump and its
# largest handler from VmHWM just before the SIGTERM, Redis and MariaDB the largest sampled VmRSS.
# Goal: end to end at least 0.7x the fill alone.
#
#   eval "$(scripts/services.sh env)"
#   ROWPUMP_BIN=build/rowpump bench/fill_and_drain.sh
#   ROWS=100000 BENCH_RUNS=1 ROWPUMP_BIN=build/rowpump bench/fill_and_drain.sh   # a quick check
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), ROWS (0: all
# of sbtest1, 1M), HIGH_WATER (100000), INFLIGHT (256), BENCH_RUNS (3), BENCH_QUEUE_DB (13), BENCH_MAX_LOAD
# (nproc), BENCH_FORCE (0), BENCH_RESULTS (bench/results/fill_and_drain.md). Needs php and cc
# (scripts/setup.sh).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 3 count)"
small_rows="$(setting ROWS 0 whole)"
high_water="$(setting HIGH_WATER 100000 count)"
inflight="$(setting INFLIGHT 256 count)"
queue_db="$(setting BENCH_QUEUE_DB 13 whole)"
results_file fill_and_drain "$small_rows"
queue="rp_bench_fill_drain_$$"
handler=(php "$root/bench/peers/noop_handler.php")

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli php cc
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
  redis UNLINK "$queue" "$queue.full" "$queue.lines" >/dev/null 2>&1 || true
  [[ "$small_rows" == 0 ]] || sql "DROP TABLE IF EXISTS rp_bench_sbtest_small" 2>/dev/null || true
  rm -rf "$private_dir"
  exit "$status"
}
clean_up_on_exit cleanup

sbtest_table "$small_rows"
log "$rows rows of $db_name.$table into $queue (db $queue_db); high water $high_water; $runs rounds"
c_handler="$private_dir/noop_handler"
cc -O2 -o "$c_handler" "$root/bench/peers/noop_handler.c" || fail "cannot compile bench/peers/noop_handler.c"
now_us() { echo "${EPOCHREALTIME/./}"; }  # wall clock in microseconds, without a process

# vm PID FIELD: vm_kb set to FIELD (VmRSS, VmHWM) of /proc/PID/status in KB, 0 when it is gone. Builtins
# only: it runs every 20 ms beside the measured processes.
vm() {
  local key value rest
  vm_kb=0
  while read -r key value rest; do
    [[ "$key" != "$2:" ]] || { vm_kb="$value"; return; }
  done 2>/dev/null <"/proc/$1/status" || true
}
# The watch of a run: one redis-cli, connected all along (a process per look would take a core of the two),
# prints every 20 ms "TIME_US READY HELD": the server's clock in microseconds, the list's length, and that
# plus every processing list of the queue (tasks popped and not acknowledged yet).
watch_script="local t = redis.call('TIME') local ready = redis.call('LLEN', KEYS[1]) local held = ready
for _, key in ipairs(redis.call('KEYS', ARGV[1])) do held = held + redis.call('LLEN', key) end
return t[1] .. string.format('%06d', t[2]) .. ' ' .. ready .. ' ' .. held"
backfill() {  # ARGS...: the backfill into $queue, timed into fill.time
  "$time_bin" -o "$private_dir/fill.time" -f '%M %U %S' "$rowpump_bin" -q backfill --table "$table" \
    --sink "$redis_db_url" --queue "$@" >/dev/null 2>"$private_dir/fill.err" ||
    { cat "$private_dir/fill.err" >&2; fail "the backfill failed"; }
}

# run NAME: one measured run; appends to NAME.times:
#   end_to_end_s fill_s fill_cpu fill_rss_kb consumer_cpu consumer_rss_kb mariadb_cpu redis_cpu peak_depth
#   handler_rss_kb redis_rss_kb mariadb_rss_kb cpu_sum
# An item ends with its backfill (fill), or once the backfill is done and a look the server took after it
# finds nothing ready or held (the last task acknowledged): the SIGTERM that follows is not timed (a worker
# waiting on the empty list may take a second to see it).
run() {
  local name="$1" fill_args=() consume_args=() handler_cmd="${handler[*]}" m0 r0 m1 r1 started filled="" ended="" done_line
  local c_rss=0 h_rss=0 rp pid fill_job at ready held peak=0 redis_rss=0 mariadb_rss=0 watch_fd
  redis UNLINK "$queue" "$queue.full" >/dev/null
  rm -f "$private_dir/filled"
  case "$name" in
    fill_hw) fill_args=(--high-water "$high_water") ;;
    fill_drain_i) consume_args=(--inflight "$inflight") ;;
    fill_drain_c) handler_cmd="$c_handler" ;;
    drain) backfill "$queue.full" ;;  # not timed: the item is the drain
  esac
  if [[ "$name" != fill ]]; then
    "$time_bin" -o "$private_dir/consumer.time" -f '%M %U %S' "$rowpump_bin" queue consume --source "$redis_db_url" \
      --queue "$queue" --pipe "$handler_cmd" --concurrency 2 --log-interval 0 "${consume_args[@]}" \
      2>"$private_dir/consumer.err" &
    consumer_pid=$!
    # Started when its first line says it consumes: its start-up is not part of the figure.
    until grep -q "consuming queue" "$private_dir/consumer.err"; do
      kill -0 "$consumer_pid" 2>/dev/null || { cat "$private_dir/consumer.err" >&2; fail "the consumer did not start"; }
      sleep 0.01
    done
  fi
  exec {watch_fd}< <(redis -r -1 -i 0.02 EVAL "$watch_script" 1 "$queue" "$queue:processing:*")
  sampler_pid=$!
  m0="$(cpu_ticks "$mariadb_pid")"; r0="$(cpu_ticks "$redis_pid")"
  started="$(now_us)"
  if [[ "$name" == drain ]]; then
    redis RENAME "$queue.full" "$queue" >/dev/null
    echo "0 0 0" >"$private_dir/fill.time"
    now_us >"$private_dir/filled"
  else
    { backfill "$queue" "${fill_args[@]}" && now_us >"$private_dir/filled"; } &
    fill_job=$!
  fi
  while read -r -u "$watch_fd" at ready held; do
    ((ready <= peak)) || peak="$ready"
    vm "$redis_pid" VmRSS; ((vm_kb <= redis_rss)) || redis_rss="$vm_kb"
    vm "$mariadb_pid" VmRSS; ((vm_kb <= mariadb_rss)) || mariadb_rss="$vm_kb"
    if [[ -z "$filled" && -s "$private_dir/filled" ]]; then
      read -r filled <"$private_dir/filled"
      [[ "$name" != fill ]] || { ended="$filled"; break; }
    fi
    [[ -n "$filled" ]] || kill -0 "${fill_job:-0}" 2>/dev/null || fail "$name: the backfill failed"
    if [[ -n "$filled" ]] && ((at > filled && held == 0)); then ended="$at"; break; fi
  done
  [[ -n "$ended" ]] || fail "$name: the watch of the queue ended"
  if [[ "$name" == fill ]]; then
    [[ "$(redis LLEN "$queue")" == "$rows" ]] || fail "fill: the list holds $(redis LLEN "$queue") tasks, not $rows"
    peak="$rows"  # the last look may come before the last push
  else
    rp="$(pgrep -P "$consumer_pid" -x rowpump)"
    vm "$rp" VmHWM; c_rss="$vm_kb"
    for pid in $(pgrep -P "$rp"); do vm "$pid" VmHWM; ((vm_kb <= h_rss)) || h_rss="$vm_kb"; done
    # The signal goes to rowpump, not to GNU time around it (time would die of it and leave rowpump on).
    kill -TERM "$rp"
    wait "$consumer_pid" || fail "$name: the consumer ended with $?"
    consumer_pid=""
    done_line="$(grep -o "[0-9]* done" "$private_dir/consumer.err" | tail -n1)"
    [[ "$done_line" == "$rows done" ]] || { cat "$private_dir/consumer.err" >&2; fail "$name: the consumer did '$done_line', not $rows"; }
  fi
  [[ -z "${fill_job:-}" ]] || wait "$fill_job"
  m1="$(cpu_ticks "$mariadb_pid")"; r1="$(cpu_ticks "$redis_pid")"
  kill "$sampler_pid" 2>/dev/null || true; exec {watch_fd}<&-; sampler_pid=""
  local fill_rss fill_u fill_s c_u=0 c_s=0
  read -r fill_rss fill_u fill_s <"$private_dir/fill.time"
  [[ "$name" == fill ]] || read -r _ c_u c_s <"$private_dir/consumer.time"
  awk -v s="$started" -v f="$filled" -v e="$ended" -v fr="$fill_rss" -v cr="$c_rss" \
      -v cu="$c_u" -v cs="$c_s" -v fu="$fill_u" -v fs="$fill_s" -v m="$((m1 - m0))" -v r="$((r1 - r0))" \
      -v hz="$hz" -v p="$peak" -v hr="$h_rss" -v rr="$redis_rss" -v mr="$mariadb_rss" \
      'BEGIN { printf "%.3f %.3f %.2f %d %.2f %d %.2f %.2f %d %d %d %d %.2f\n", (e - s) / 1e6, (f - s) / 1e6, fu + fs,
               fr, cu + cs, cr, m / hz, r / hz, p, hr, rr, mr, fu + fs + cu + cs + (m + r) / hz }' \
      >>"$private_dir/$name.times"
}
last() { tail -n1 "$private_dir/$1.times" | awk '{ printf "%s s (CPU %s), peak depth %s", $1, $13, $9 }'; }

# php_floor: the PHP handler alone on the task lines a consumer would write it (from the list a fill left;
# the same JSON line as handler/task_lines.cpp writes), its CPU into php_floor.times ("wall cpu").
task_lines="$private_dir/task_lines"
write_task_lines() {
  redis RENAME "$queue" "$queue.lines" >/dev/null
  redis LRANGE "$queue.lines" 0 -1 |
    awk -v q="$queue" '{ printf "{\"id\":null,\"attempt\":1,\"queue\":\"%s\",\"payload\":%s}\n", q, $0 }' >"$task_lines"
  redis UNLINK "$queue.lines" >/dev/null
  [[ "$(wc -l <"$task_lines")" == "$rows" ]] || fail "the task lines are not $rows"
}
php_floor() {
  "$time_bin" -o "$private_dir/php.time" -f '%e %U %S' "${handler[@]}" <"$task_lines" >/dev/null
  awk '{ printf "%.3f %.2f\n", $1, $2 + $3 }' "$private_dir/php.time" >>"$private_dir/php_floor.times"
}

names=(fill drain fill_drain fill_hw fill_drain_i fill_drain_c)
log "warm-up run of ${names[*]}"
for name in "${names[@]}"; do run "$name"; rm -f "$private_dir/$name.times"; done
run fill && rm -f "$private_dir/fill.times" && write_task_lines
for ((round = 0; round < runs; ++round)); do
  line="round $((round + 1)):"
  for ((i = 0; i < ${#names[@]}; ++i)); do
    name="${names[(round + i) % ${#names[@]}]}"
    run "$name"
    line+=" $name $(last "$name");"
  done
  php_floor
  log "${line%;}; php floor $(tail -n1 "$private_dir/php_floor.times")"
done

rate() { awk -v n="$rows" -v w="$(column_median "$1" "${2:-1}")" 'BEGIN { printf "%.0f", n / w }'; }
fill_rate="$(rate fill)"
row() {  # LABEL NAME
  local m=() c
  for c in 1 2 9 3 5 7 8 13 4 6 10 11 12; do m+=("$(column_median "$2" "$c")"); done
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "${m[0]}" "${m[1]}" \
    "$(rate "$2")" "$(awk -v a="$(rate "$2")" -v b="$fill_rate" 'BEGIN { printf "%.2f", a / b }')" "${m[@]:2}"
}
php_wall="$(median <(cut -d' ' -f1 "$private_dir/php_floor.times"))"
php_cpu="$(median <(cut -d' ' -f2 "$private_dir/php_floor.times"))"
fill_wall="$(column_median fill 1)"
{
  echo "# Fill and drain at once: a backfill into a Redis list while --pipe consumers drain it"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $rows rows of $table; medians of $runs rounds, order rotating; $(nproc) cores;"
  echo "load before: $load_before; after: $(uptime_line). Consumer: \`queue consume --pipe 'php noop_handler.php' --concurrency 2\`"
  echo "unless the item says otherwise. CPU in core-seconds; consumer CPU includes its handler processes; CPU sum is"
  echo "backfill + consumer + MariaDB + Redis. RSS in KB: backfill (GNU time), consumer rowpump and its largest handler"
  echo "(VmHWM), Redis and MariaDB (largest VmRSS sampled every 20 ms)."
  echo
  echo "| item | end to end s | backfill s | rows/s end to end | x fill alone | peak depth | backfill CPU | consumer CPU | MariaDB CPU | Redis CPU | CPU sum | backfill RSS | consumer RSS | handler RSS | Redis RSS | MariaDB RSS |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  row "backfill alone" fill
  row "consumer alone, draining the full list" drain
  row "backfill + consumer" fill_drain
  row "backfill --high-water $high_water + consumer" fill_hw
  row "backfill + consumer --inflight $inflight" fill_drain_i
  row "backfill + consumer, C no-op handler (floor, not PHP)" fill_drain_c
  echo
  echo "- Goal: end to end at least 0.7x the fill alone, i.e. at most $(awk -v f="$fill_wall" 'BEGIN { printf "%.3f", f / 0.7 }') s here,"
  echo "  which leaves $(awk -v f="$fill_wall" -v c="$(nproc)" 'BEGIN { printf "%.2f", c * f / 0.7 }') core-s on $(nproc) cores for every process together."
  echo "- The PHP handler alone, reading the $rows task lines from a file: ${php_wall} s wall, ${php_cpu} core-s (median)."
  echo "- Each run's end to end, s: fill $(joined "$private_dir/fill.times"); drain $(joined "$private_dir/drain.times");"
  echo "  fill_drain $(joined "$private_dir/fill_drain.times"); fill_hw $(joined "$private_dir/fill_hw.times");"
  echo "  fill_drain_i $(joined "$private_dir/fill_drain_i.times"); fill_drain_c $(joined "$private_dir/fill_drain_c.times")."
} >"$results"
cat "$results"

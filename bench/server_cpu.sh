#!/usr/bin/env bash
# What each process spends to move sbtest1 (1M rows) into a Redis list: the CPU of the MariaDB server, of
# the Redis server (both from their own /proc/PID/stat counters, utime + stime, read before and after each
# run) and of the client (GNU time), for `rowpump backfill` and for `peers/careful.php`, in alternating
# rounds after a warm-up round of each. Redis's INFO cpu is read around each run too, to compare the two
# accounts, and MariaDB's statement counters (SHOW GLOBAL STATUS: Com_select, Connections,
# Handler_read_key, Handler_read_next), to see what the server's CPU went on: the rows, or the statements
# around them. Prints a markdown table of medians, with every run, to stdout.
#
#   ROWPUMP_BIN=build/rowpump bench/server_cpu.sh
#
# Environment: ROWPUMP_MYSQL_URL, ROWPUMP_REDIS_URL (eval "$(scripts/services.sh env)"), ROWPUMP_BIN
# (build/rowpump), BENCH_RUNS (3), BENCH_PARTITIONS (8; rowpump's --partitions, default workers),
# BENCH_ROWPUMP_ARGS (more flags for rowpump, e.g. "--max-page-size 50000"; split on spaces), the
# servers' pid files under ROWPUMP_STATE_DIR (.state), or BENCH_MARIADB_PID and BENCH_REDIS_PID. The queue
# key is rp_bench_server_cpu, emptied before and deleted after every run; before each run Redis has freed it
# and handed its pages back (lib/common.sh settle_redis), so that every run fills new pages alike.
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 3 count)"
partitions="$(setting BENCH_PARTITIONS 8 count)"
read -r -a extra_args <<<"${BENCH_ROWPUMP_ARGS:-}"
key=rp_bench_server_cpu
rows=1000000

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools php
time_bin=/usr/bin/time
[[ -x "$time_bin" ]] || { log "GNU time is not installed (scripts/setup.sh --bench)"; exit 2; }

make_private_dir rp_bench_server_cpu
mysql_connection
redis_connection
mariadb_pid="$(server_pid mariadb)"
redis_pid="$(server_pid redis)"
[[ -n "$mariadb_pid" && -n "$redis_pid" ]] ||
  { log "the servers' pids are not known: set BENCH_MARIADB_PID and BENCH_REDIS_PID"; exit 2; }
rowpump_password_files
trap 'redis DEL "$key" >/dev/null 2>&1 || true; rm -rf "$private_dir"' EXIT
"$root/bench/sysbench_table.sh"
clock_ticks="$(getconf CLK_TCK)"

# Redis's own account of its CPU (INFO cpu: used_cpu_sys + used_cpu_user, seconds), beside /proc's.
redis_info_cpu() {
  redis INFO cpu | tr -d '\r' | awk -F: '$1 == "used_cpu_sys" || $1 == "used_cpu_user" { s += $2 } END { print s }'
}

# MariaDB's counters, in this order: Com_select Connections Handler_read_key Handler_read_next. Global:
# the runs hold the shared lock, so nothing else of this project's reads them meanwhile. The reading after
# a run is itself a connection, counted in its own answer: run() takes it off.
statement_counters() {
  sql "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select', 'Connections', 'Handler_read_key', 'Handler_read_next')" |
    sort | cut -f2 | paste -sd' '
}

# run NAME COMMAND...: one run from an empty list, checked to leave exactly $rows tasks; appends
# "wall client_cpu mariadb_cpu redis_cpu redis_info_cpu" (seconds) and the changes of statement_counters
# to $private_dir/NAME.times.
run() {
  local name="$1" mariadb_before redis_before info_before mariadb_after redis_after info_after length wall user sys
  local counters_before counters_after
  shift
  redis DEL "$key" >/dev/null
  settle_redis 60
  counters_before="$(statement_counters)"
  info_before="$(redis_info_cpu)"
  mariadb_before="$(cpu_ticks "$mariadb_pid")"
  redis_before="$(cpu_ticks "$redis_pid")"
  if ! "$time_bin" -o "$private_dir/time" -f '%e %U %S' "$@" >/dev/null 2>"$private_dir/stderr"; then
    log "$name failed:"
    sed 's/^/  /' "$private_dir/stderr" >&2
    exit 1
  fi
  mariadb_after="$(cpu_ticks "$mariadb_pid")"
  redis_after="$(cpu_ticks "$redis_pid")"
  info_after="$(redis_info_cpu)"
  counters_after="$(statement_counters)"
  length="$(redis LLEN "$key")"
  [[ "$length" == "$rows" ]] || { log "$name left $length tasks in $key, expected $rows"; exit 1; }
  redis DEL "$key" >/dev/null
  read -r wall user sys <"$private_dir/time"
  awk -v w="$wall" -v u="$user" -v s="$sys" -v m="$((mariadb_after - mariadb_before))" \
      -v r="$((redis_after - redis_before))" -v t="$clock_ticks" -v i0="$info_before" -v i1="$info_after" \
      -v c0="$counters_before" -v c1="$counters_after" \
      'BEGIN { split(c0, a, " "); split(c1, b, " ")
               printf "%.2f %.2f %.2f %.2f %.2f %d %d %d %d\n", w, u + s, m / t, r / t, i1 - i0,
                      b[1] - a[1], b[2] - a[2] - 1, b[3] - a[3], b[4] - a[4] }' >>"$private_dir/$name.times"
}

rowpump_run() {
  run "$1" "$rowpump_bin" backfill --mysql "$mysql_sink" --table sbtest1 --partitions "$partitions" \
    --sink "$redis_sink" --queue "$key" "${extra_args[@]}"
}
careful_run() { run "$1" php "$root/bench/peers/careful.php" sbtest1 "$key"; }

refuse_when_loaded "$cores"
log "warm-up: one run of each, not counted"
rowpump_run warmup
careful_run warmup
for ((round = 1; round <= runs; ++round)); do
  log "round $round of $runs"
  if ((round % 2)); then rowpump_run rowpump; careful_run careful; else careful_run careful; rowpump_run rowpump; fi
done

median_of() { cut -d' ' -f"$2" "$private_dir/$1.times" | median; }
runs_of() { cut -d' ' -f"$2" "$private_dir/$1.times" | paste -sd, | sed 's/,/, /g'; }
echo "| command | wall s | client CPU s | MariaDB CPU s | Redis CPU s | Redis INFO cpu s | runs: wall / client / MariaDB / Redis / INFO |"
echo "|---|---|---|---|---|---|---|"
for name in rowpump careful; do
  case "$name" in
    rowpump) label="\`rowpump backfill --table sbtest1 --partitions $partitions --sink redis --queue KEY${extra_args[*]:+ ${extra_args[*]}}\`" ;;
    careful) label="\`php bench/peers/careful.php sbtest1 KEY\`" ;;
  esac
  echo "| $label | $(median_of "$name" 1) | $(median_of "$name" 2) | $(median_of "$name" 3) | $(median_of "$name" 4) |" \
       "$(median_of "$name" 5) | $(runs_of "$name" 1) / $(runs_of "$name" 2) / $(runs_of "$name" 3) /" \
       "$(runs_of "$name" 4) / $(runs_of "$name" 5) |"
done
echo
echo "MariaDB's statement counters over each run (SHOW GLOBAL STATUS deltas, medians; the runs in the last column):"
echo
echo "| command | Com_select | Connections | Handler_read_key | Handler_read_next | runs: Com_select / Connections |"
echo "|---|---|---|---|---|---|"
for name in rowpump careful; do
  echo "| $name | $(median_of "$name" 6) | $(median_of "$name" 7) | $(median_of "$name" 8) | $(median_of "$name" 9) |" \
       "$(runs_of "$name" 6) / $(runs_of "$name" 7) |"
done
echo
echo "Load before: \`$uptime_before\`; after: \`$(uptime_line)\`."

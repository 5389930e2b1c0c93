#!/usr/bin/env bash
# The floor of an exact jump on a table whose only index is its clustered primary key (the salaries-shaped
# table of bench/cursor_vs_offset.sh, which makes it: run that first with BENCH_KEEP_TABLE=1): to know
# which rows start page N, something must walk the (N - 1) * size entries before it, and here the
# narrowest index in the sort's order is the table itself. Each run, alternating, with the MariaDB
# server's CPU (utime + stime of mariadbd from /proc/PID/stat, before and after) beside the wall:
#  offset        SELECT <columns> ... ORDER BY emp_no, from_date LIMIT D, 20 (what the jump must beat)
#  count         SELECT COUNT(*) ... WHERE emp_no < E: the cheapest exact count of the rows before the
#                page's first employee, one session (a covering walk of the primary key, no row sent)
#  count_split   the same rows counted as two halves on two sessions at once (what the cursor's gap
#                counts do): the wall of the slower half, the server's CPU of both
#  deferred_join the exact jump from the list's start (LIMIT D, 21 over the key, joined back)
# BENCH_RUNS runs each (default 5), medians; markdown on stdout.
#
#   flock /tmp/rowpump-build.lock bash bench/cursor_count_floor.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
require_env ROWPUMP_MYSQL_URL
runs="$(setting BENCH_RUNS 5 count)"
make_private_dir
mysql_connection
trap 'rm -rf "$private_dir"' EXIT
table=rp_bench_cursor_salaries
[[ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '$table'")" == 1 ]] ||
  { log "no $table: run BENCH_KEEP_TABLE=1 BENCH_TABLES=salaries bench/cursor_vs_offset.sh first"; exit 2; }
server="$(server_pid mariadb)"
[[ -n "$server" ]] || { log "the server's pid is not known: set BENCH_MARIADB_PID"; exit 2; }
ticks_per_second="$(getconf CLK_TCK)"
rows="$(sql "SELECT COUNT(*) FROM $table")"
depth=$((rows / 2 / 20 * 20))
# The page's first employee, and the one halfway to it (the split count's seam).
first="$(sql "SELECT emp_no FROM $table ORDER BY emp_no, from_date LIMIT $depth, 1")"
seam="$(sql "SELECT emp_no FROM $table ORDER BY emp_no, from_date LIMIT $((depth / 2)), 1")"
before="$(sql "SELECT COUNT(*) FROM $table WHERE emp_no < $first")"
declare -A statements=(
  [offset]="SELECT emp_no, salary, from_date, to_date FROM $table ORDER BY emp_no, from_date LIMIT $depth, 20"
  [count]="SELECT COUNT(*) FROM $table WHERE emp_no < $first"
  [deferred_join]="SELECT t.* FROM $table AS t JOIN (SELECT emp_no, from_date FROM $table ORDER BY emp_no, from_date
     LIMIT $depth, 21) AS p ON t.emp_no = p.emp_no AND t.from_date = p.from_date ORDER BY t.emp_no, t.from_date"
)

# run NAME: one run; appends "wall_ms server_cpu_ms" to NAME.times.
run() {
  local name="$1" cpu_before cpu_after start end
  cpu_before="$(cpu_ticks "$server")"
  start="$(date +%s%N)"
  if [[ "$name" == count_split ]]; then
    sql "SELECT COUNT(*) FROM $table WHERE emp_no < $seam" >/dev/null &
    sql "SELECT COUNT(*) FROM $table WHERE emp_no >= $seam AND emp_no < $first" >/dev/null
    wait
  else
    sql "${statements[$name]}" >/dev/null
  fi
  end="$(date +%s%N)"
  cpu_after="$(cpu_ticks "$server")"
  echo "$(((end - start) / 1000000)) $(((cpu_after - cpu_before) * 1000 / ticks_per_second))" >>"$private_dir/$name.times"
}

names=(offset count count_split deferred_join)
for ((i = 0; i < runs; i++)); do
  for name in "${names[@]}"; do run "$name"; done
done
echo "## The exact count's floor on $table ($rows rows, only a clustered primary key; depth $depth, $before rows before the page's first employee)"
echo
echo "Load (uptime): \`$(uptime_line)\`; medians of $runs runs each, alternating; wall in the client (a mariadb"
echo "client process each, its start included), the server's CPU from /proc/$server/stat ($ticks_per_second ticks a second)."
echo
echo "| statement | wall ms | server CPU ms | wall / offset's | CPU / offset's |"
echo "|---|---|---|---|---|"
offset_wall="$(column_median offset 1)"
offset_cpu="$(column_median offset 2)"
for name in "${names[@]}"; do
  wall="$(column_median "$name" 1)"
  cpu="$(column_median "$name" 2)"
  echo "| $name | $wall | $cpu | $(awk -v a="$wall" -v b="$offset_wall" 'BEGIN { printf "%.2f", a / b }') | $(awk -v a="$cpu" -v b="$offset_cpu" 'BEGIN { printf "%.2f", b ? a / b : 0 }') |"
done

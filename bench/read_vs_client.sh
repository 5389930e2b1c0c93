#!/usr/bin/env bash
# Full read of the 1M-row sysbench table: `rowpump read` (CSV and JSON) against the MariaDB client
# streaming the same rows (`mariadb --quick -N -e 'SELECT * FROM sbtest1 ORDER BY id'`), all to /dev/null.
#
# 1. picks rowpump's page size: one CSV read at each of BENCH_PAGE_SIZES, the fastest wins
#    (skipped when BENCH_PAGE_SIZE is set);
# 2. one warm-up round, then BENCH_RUNS rounds that alternate the three commands (the order rotates
#    each round), so a burst of load from elsewhere hits all of them alike;
# 3. prints a markdown table: median wall time, median user+sys CPU of the command, median CPU the
#    server spent meanwhile (when its pid is known), and the wall-time ratio to the client.
#
# On a shared machine wall time mostly measures the CPU share a run got; the CPU columns are steadier
# (the server's also counts other sessions' queries, if any run at the same time).
#
#   eval "$(scripts/services.sh env)"
#   bench/read_vs_client.sh                  # uses build/rowpump
#   ROWPUMP_BIN=build-bench/rowpump bench/read_vs_client.sh
#
# Environment: ROWPUMP_MYSQL_URL (required), ROWPUMP_BIN (build/rowpump), BENCH_RUNS (5),
# BENCH_PAGE_SIZES ("1000 5000 10000 20000"), BENCH_PAGE_SIZE (skip the pick), BENCH_TABLE (sbtest1),
# BENCH_SERVER_PID (default: the pid file of scripts/services.sh's MariaDB, under ROWPUMP_STATE_DIR or .state).
# The table is created first by bench/sysbench_table.sh (a no-op when it is there).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 5 count)"
page_sizes="$(setting BENCH_PAGE_SIZES "1000 5000 10000 20000")"
table="$(setting BENCH_TABLE sbtest1 name)"

require_env ROWPUMP_MYSQL_URL
require_rowpump "$rowpump_bin"
require_tools mariadb

[[ "$table" != sbtest1 ]] || "$root/bench/sysbench_table.sh"

# The client gets the URL's connection through a private option file: no password on a command line.
make_private_dir rp_bench_read
mysql_connection

server_pid="${BENCH_SERVER_PID:-$(service_pid mariadb)}"
[[ "$server_pid" =~ ^[0-9]+$ && -r "/proc/$server_pid/stat" ]] || server_pid=""
[[ -n "$server_pid" ]] || log "the server's pid is unknown (set BENCH_SERVER_PID): no server CPU column"
clock_ticks="$(getconf CLK_TCK)"

# The server's CPU so far, in clock ticks (0 when its pid is unknown).
server_ticks() { cpu_ticks ${server_pid:+"$server_pid"}; }

# Runs one command with stdout to /dev/null; records "wall cpu server_cpu" seconds in
# $private_dir/<name>.times and prints the wall time.
timed() {
  local name="$1"
  shift
  local TIMEFORMAT='%3R %3U %3S' timing wall user sys server_before server_after
  server_before="$(server_ticks)"
  if ! timing="$( { time "$@" >/dev/null 2>"$private_dir/stderr"; } 2>&1 )"; then
    log "$name failed:"
    sed 's/^/  /' "$private_dir/stderr" >&2
    exit 1
  fi
  server_after="$(server_ticks)"
  read -r wall user sys <<<"$timing"
  awk -v w="$wall" -v u="$user" -v s="$sys" -v d="$((server_after - server_before))" -v hz="$clock_ticks" \
    'BEGIN { printf "%s %.3f %.2f\n", w, u + s, d / hz }' >>"$private_dir/$name.times"
  echo "$wall"
}

client() { mariadb --defaults-extra-file="$client_config" --quick -N -e "SELECT * FROM $table ORDER BY id" "$db_name"; }
rowpump_read() { "$rowpump_bin" read --table "$table" --page-size "$1" --format "$2"; }

log "warm-up: one read by the client (buffer pool)"
timed warmup client >/dev/null

declare -A pick_seconds=()
if [[ -n "${BENCH_PAGE_SIZE:-}" ]]; then
  page_size="$BENCH_PAGE_SIZE"
else
  page_size=""
  for size in $page_sizes; do
    pick_seconds[$size]="$(timed "pick-$size" rowpump_read "$size" csv)"
    log "page size $size: ${pick_seconds[$size]} s (csv, one run)"
    if [[ -z "$page_size" ]] || awk -v a="${pick_seconds[$size]}" -v b="${pick_seconds[$page_size]}" 'BEGIN { exit !(a < b) }'; then
      page_size="$size"
    fi
  done
fi
log "page size $page_size; $runs alternating rounds of client, rowpump csv, rowpump json"

commands=(client csv json)
run_one() {
  case "$1" in
    client) timed client client ;;
    csv) timed csv rowpump_read "$page_size" csv ;;
    json) timed json rowpump_read "$page_size" json ;;
  esac
}
for name in "${commands[@]}"; do run_one "$name" >/dev/null; rm -f "$private_dir/$name.times"; done  # warm-up round
for ((round = 0; round < runs; ++round)); do
  line="round $((round + 1)):"
  for ((i = 0; i < ${#commands[@]}; ++i)); do
    name="${commands[(round + i) % ${#commands[@]}]}"
    line+=" $name $(run_one "$name") s"
  done
  log "$line"
done

client_wall="$(column_median client 1)"
row() {
  local label="$1" name="$2" server="n/a"
  [[ -z "$server_pid" ]] || server="$(column_median "$name" 3)"
  awk -v l="$label" -v w="$(column_median "$name" 1)" -v c="$(column_median "$name" 2)" -v srv="$server" \
    -v base="$client_wall" 'BEGIN { printf "| %s | %.3f | %.3f | %s | %.2fx |\n", l, w, c, srv, w / base }'
}

echo "## Full read of $table ($(mariadb --defaults-extra-file="$client_config" -N -e "SELECT COUNT(*) FROM $table" "$db_name") rows), $(date -u +%Y-%m-%d)"
echo
echo "$(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $runs alternating rounds after a warm-up round; medians."
echo
echo "| command | wall s | user+sys CPU s | server CPU s | wall / client |"
echo "|---|---|---|---|---|"
row "\`mariadb --quick -N -e 'SELECT * FROM $table ORDER BY id'\`" client
row "\`rowpump read --format csv --page-size $page_size\`" csv
row "\`rowpump read --format json --page-size $page_size\`" json
if ((${#pick_seconds[@]})); then
  echo
  echo "Page size pick (csv, one run each):$(for size in $page_sizes; do printf ' %s: %s s;' "$size" "${pick_seconds[$size]}"; done | sed 's/;$//') -> $page_size."
fi

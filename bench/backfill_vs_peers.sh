#!/usr/bin/env bash
# The peer benchmark (issue 3): `rowpump backfill` of the 1M-row sysbench table into a Redis list, side by
# side with the ways people do it without rowpump, in one session, alternating:
#
#   rowpump      rowpump backfill --table sbtest1 --sink REDIS --queue KEY   (default workers and ranges)
#   careful.php  one unbuffered SELECT, variadic RPUSH per 1000 rows         (bench/peers/careful.php)
#   simple.php   one buffered SELECT, one RPUSH per row                      (bench/peers/simple.php)
#   mydumper     mydumper -t 2 of the same table to SQL files, rows only    (not a queue: the floor of
#                                                                             "get the rows out")
# then a BENCH_BIG_ROWS-row table (4M) through rowpump against the 1M median, and rowpump into a MySQL
# queue table against the mariadb client loading the same payloads as a multi-row INSERT file.
#
# Every Redis run starts from an empty list (DEL, not timed) and must leave exactly its row count in it;
# every mydumper run must dump every row; every MySQL run starts from an empty, freshly created queue table
# and must leave every row in it. Anything else stops the script. Each run is timed by GNU time
# (/usr/bin/time, Debian package `time`): wall seconds, peak RSS, user+sys CPU; the CPU the MariaDB and
# Redis servers spent meanwhile comes from /proc/<pid>/stat of scripts/services.sh's servers.
#
# simple.php makes one round trip per row and would take minutes per run on the whole table: it reads the
# first BENCH_SIMPLE_ROWS rows by id (100000), and its rows/s is extrapolated to the table, labelled so.
# Its buffered result grows with the rows read, so its peak RSS is only that of the rows it read.
#
# The MySQL comparison: the INSERT file is what a user would load with the client: the payloads rowpump
# makes (written first by `rowpump backfill --sink file:` so both load the same JSON), escaped for SQL,
# BENCH_INSERT_ROWS (1000) rows per INSERT statement, autocommit, into a table created by
# `rowpump queue init` exactly like rowpump's queue table. Preparing the file is not timed. A server-side
# INSERT ... SELECT JSON_OBJECT(...) would not be the same job: no row would leave the server.
#
# Refuses to run while the 1-minute load average is above BENCH_MAX_LOAD (default: the number of cores)
# unless BENCH_FORCE=1, and records the load before and after. Writes the markdown table to stdout and
# BENCH_RESULTS, the chart's data beside it (.dat) and the chart, rows/s per tool (.png, gnuplot).
#
#   eval "$(scripts/services.sh env)"
#   bench/backfill_vs_peers.sh                            # uses build/rowpump
#   ROWPUMP_BIN=build-bench/rowpump BENCH_RUNS=1 BENCH_SIMPLE_ROWS=10000 BENCH_BIG_ROWS=0 bench/backfill_vs_peers.sh
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump),
# BENCH_RUNS (3 rounds of the four Redis-side commands, and of the two MySQL-side ones),
# BENCH_SIMPLE_ROWS (100000; 0: the whole table), BENCH_BIG_ROWS (4000000; 0 skips the big table),
# BENCH_BIG_RUNS (1), BENCH_KEEP_BIG (0: the big table rp_bench_sbtest_big is dropped at the end; 1 keeps
# it for the next run, as sbtest1 is kept), BENCH_MYDUMPER_THREADS (2), BENCH_MYDUMPER_CHUNK (100000 rows
# per chunk: without chunks mydumper dumps one table with one thread), BENCH_INSERT_ROWS (1000),
# BENCH_SKIP_MYSQL (0), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0),
# BENCH_RESULTS (bench/results/backfill_vs_peers.md).
# Everything the script creates is named rp_bench_* and removed at the end, also after a failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/lib/common.sh"
rowpump_bin="${ROWPUMP_BIN:-$root/build/rowpump}"
runs="${BENCH_RUNS:-3}"
simple_rows="${BENCH_SIMPLE_ROWS:-100000}"
big_rows="${BENCH_BIG_ROWS:-4000000}"
big_runs="${BENCH_BIG_RUNS:-1}"
keep_big="${BENCH_KEEP_BIG:-0}"
mydumper_threads="${BENCH_MYDUMPER_THREADS:-2}"
mydumper_chunk="${BENCH_MYDUMPER_CHUNK:-100000}"
insert_rows="${BENCH_INSERT_ROWS:-1000}"
skip_mysql="${BENCH_SKIP_MYSQL:-0}"
cores="$(nproc)"
max_load="${BENCH_MAX_LOAD:-$cores}"
force="${BENCH_FORCE:-0}"
results="${BENCH_RESULTS:-$root/bench/results/backfill_vs_peers.md}"
table=sbtest1
big_table=rp_bench_sbtest_big
redis_key="rp_bench_peers_$$"
queue_table="rp_bench_peers_queue_$$"
insert_table="rp_bench_peers_insert_$$"
time_bin=/usr/bin/time

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
for setting in "BENCH_RUNS=$runs" "BENCH_BIG_RUNS=$big_runs" "BENCH_MYDUMPER_THREADS=$mydumper_threads" \
               "BENCH_MYDUMPER_CHUNK=$mydumper_chunk" "BENCH_INSERT_ROWS=$insert_rows"; do
  [[ "${setting#*=}" =~ ^[1-9][0-9]*$ ]] || { log "bad $setting"; exit 2; }
done
[[ "$simple_rows" =~ ^[0-9]+$ ]] || { log "bad BENCH_SIMPLE_ROWS: $simple_rows"; exit 2; }
[[ "$big_rows" =~ ^[0-9]+$ ]] || { log "bad BENCH_BIG_ROWS: $big_rows"; exit 2; }
[[ "$max_load" =~ ^[0-9]+([.][0-9]+)?$ ]] || { log "bad BENCH_MAX_LOAD: $max_load"; exit 2; }
for tool in mariadb redis-cli php mydumper gnuplot; do
  command -v "$tool" >/dev/null 2>&1 || { log "$tool is not installed (scripts/setup.sh --bench)"; exit 2; }
done
[[ -x "$time_bin" ]] || { log "$time_bin is missing: install the Debian package time (scripts/setup.sh --bench)"; exit 2; }
php -r 'exit(extension_loaded("mysqli") && extension_loaded("redis") ? 0 : 1);' ||
  { log "php needs the mysqli and redis extensions (php-mysql, php-redis)"; exit 2; }

refuse_when_loaded "$max_load" "$force"

# The clients get the passwords through private files, never a command line: an option file for mariadb
# and mydumper, password files for rowpump's sink URLs (the same URLs without their passwords), REDISCLI_AUTH
# for redis-cli; the PHP scripts parse ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL themselves.
make_private_dir rp_bench_peers
# utf8mb4: the client loads an INSERT file of JSON payloads, which may hold any text of the table.
mysql_connection default-character-set=utf8mb4
redis_connection
rowpump_password_files

cleanup() {
  local status=$?
  trap - EXIT
  redis DEL "$redis_key" >/dev/null 2>&1 || true
  sql "DROP TABLE IF EXISTS \`$queue_table\`, \`$insert_table\`" 2>/dev/null || true
  [[ "$keep_big" == 1 ]] || sql "DROP TABLE IF EXISTS \`$big_table\`" 2>/dev/null || true
  rm -rf "$private_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# CPU (utime + stime, clock ticks) of the MariaDB and Redis servers started by scripts/services.sh.
server_pids=()
for server in mariadb redis; do
  pid="$(service_pid "$server")"
  [[ -z "$pid" ]] || server_pids+=("$pid")
done
((${#server_pids[@]} == 2)) ||
  log "the servers' pids are not both known (pid files in ${ROWPUMP_STATE_DIR:-$root/.state}): the server CPU column is partial"
clock_ticks="$(getconf CLK_TCK)"
server_ticks() { cpu_ticks "${server_pids[@]}"; }

# measure NAME ROWS COMMAND...: runs COMMAND (stdin from $run_stdin, default /dev/null; stdout kept in
# $private_dir/stdout) under GNU time and appends "wall rss_kb cpu server_cpu rows" to $private_dir/NAME.times.
run_stdin=/dev/null
measure() {
  local name="$1" rows="$2" before after wall rss user sys
  shift 2
  before="$(server_ticks)"
  if ! "$time_bin" -o "$private_dir/time" -f '%e %M %U %S' "$@" <"$run_stdin" >"$private_dir/stdout" 2>"$private_dir/stderr"; then
    log "$name failed:"
    sed 's/^/  /' "$private_dir/stderr" >&2
    exit 1
  fi
  after="$(server_ticks)"
  read -r wall rss user sys <"$private_dir/time"
  awk -v w="$wall" -v r="$rss" -v u="$user" -v s="$sys" -v d="$((after - before))" -v hz="$clock_ticks" -v n="$rows" \
    'BEGIN { printf "%.2f %d %.2f %.2f %d\n", w, r, u + s, d / hz, n }' >>"$private_dir/$name.times"
}

expect_list() {
  local what="$1" expected="$2" length
  length="$(redis LLEN "$redis_key")"
  [[ "$length" == "$expected" ]] || { log "$what left $length entries in the Redis list, expected $expected"; exit 1; }
}

dump_dir="$private_dir/dump"
run_redis_side() {
  local name="$1" rows
  redis DEL "$redis_key" >/dev/null
  case "$name" in
    rowpump)
      measure rowpump "$table_rows" "$rowpump_bin" -q backfill --table "$table" --sink "$redis_sink" --queue "$redis_key"
      expect_list rowpump "$table_rows" ;;
    careful)
      measure careful "$table_rows" php "$root/bench/peers/careful.php" "$table" "$redis_key"
      expect_list careful.php "$table_rows" ;;
    simple)
      measure simple "$simple_count" php "$root/bench/peers/simple.php" "$table" "$redis_key" "$simple_count"
      expect_list simple.php "$simple_count" ;;
    mydumper)
      rm -rf "$dump_dir"
      # --no-locks: rowpump takes no global read lock either, and the table does not change meanwhile.
      measure mydumper "$table_rows" mydumper --defaults-file="$client_config" -B "$db_name" -T "$table" \
        -t "$mydumper_threads" -r "$mydumper_chunk" --no-schemas --no-locks -v 1 -o "$dump_dir"
      rows="$(cat "$dump_dir"/*.sql | grep -c '^(' || true)"
      [[ "$rows" == "$table_rows" ]] || { log "mydumper dumped $rows rows, expected $table_rows"; exit 1; }
      rm -rf "$dump_dir" ;;
  esac
  redis DEL "$redis_key" >/dev/null
}

last_wall() { tail -n1 "$private_dir/$1.times" | cut -d' ' -f1; }
column_max() { cut -d' ' -f"$2" "$private_dir/$1.times" | sort -n | tail -n1; }

# ---- 1. the 1M-row table into a Redis list, against the peers ----------------------------------------
"$root/bench/sysbench_table.sh"
table_rows="$(sql "SELECT COUNT(*) FROM $table")"
simple_count="$simple_rows"
((simple_count > 0 && simple_count < table_rows)) || simple_count="$table_rows"
log "$table_rows rows of $db_name.$table; load $load_before on $cores cores; $runs alternating rounds"
log "warm-up (not counted): a client read of the table, then rowpump, careful.php and mydumper once each"
mariadb --defaults-extra-file="$client_config" --quick -N -e "SELECT * FROM $table ORDER BY id" "$db_name" >/dev/null
for name in rowpump careful mydumper; do run_redis_side "$name"; rm -f "$private_dir/$name.times"; done

commands=(rowpump careful simple mydumper)
for ((round = 0; round < runs; ++round)); do
  line="round $((round + 1)):"
  for ((i = 0; i < ${#commands[@]}; ++i)); do
    name="${commands[(round + i) % ${#commands[@]}]}"
    run_redis_side "$name"
    line+=" $name $(last_wall "$name") s;"
  done
  log "${line%;}"
done

# ---- 2. a bigger table through rowpump ----------------------------------------------------------------
if ((big_rows > 0)); then
  BENCH_TABLE="$big_table" BENCH_TABLE_SIZE="$big_rows" "$root/bench/sysbench_table.sh"
  log "big table: warm-up read by the client, then $big_runs rowpump run(s) of $big_rows rows"
  mariadb --defaults-extra-file="$client_config" --quick -N -e "SELECT * FROM $big_table ORDER BY id" "$db_name" >/dev/null
  for ((run = 1; run <= big_runs; ++run)); do
    redis DEL "$redis_key" >/dev/null
    measure big "$big_rows" "$rowpump_bin" -q backfill --table "$big_table" --sink "$redis_sink" --queue "$redis_key"
    expect_list "rowpump ($big_table)" "$big_rows"
    redis DEL "$redis_key" >/dev/null
    log "big run $run: $(last_wall big) s"
  done
fi

# ---- 3. into a MySQL queue table: rowpump against the client loading a multi-row INSERT file -------------
if [[ "$skip_mysql" != 1 ]]; then
  log "MySQL queue: writing rowpump's payloads to a file and an INSERT file of $insert_rows rows per statement (not timed)"
  "$rowpump_bin" -q backfill --table "$table" --sink "file:$private_dir/payloads.ndjson" >/dev/null 2>"$private_dir/stderr" ||
    { log "rowpump backfill --sink file: failed:"; sed 's/^/  /' "$private_dir/stderr" >&2; exit 1; }
  payloads="$(wc -l <"$private_dir/payloads.ndjson")"
  [[ "$payloads" == "$table_rows" ]] || { log "the payload file has $payloads lines, expected $table_rows"; exit 1; }
  sed -e 's/\\/\\\\/g' -e "s/'/\\\\'/g" "$private_dir/payloads.ndjson" |
    awk -v table="$insert_table" -v per="$insert_rows" -v q="'" '
      { printf "%s(%s%s%s, NOW(6))", ((NR - 1) % per == 0) ? "INSERT INTO `" table "` (payload, available_at) VALUES\n" : ",\n", q, $0, q
        if (NR % per == 0) print ";" }
      END { if (NR % per) print ";" }' >"$private_dir/insert.sql"
  rm -f "$private_dir/payloads.ndjson"

  fresh_queue() {
    sql "DROP TABLE IF EXISTS \`$1\`"
    "$rowpump_bin" -q queue init --source "$mysql_sink" --queue "$1" >/dev/null
  }
  expect_rows() {
    local count
    count="$(sql "SELECT COUNT(*) FROM \`$2\`")"
    [[ "$count" == "$table_rows" ]] || { log "$1 left $count rows in $2, expected $table_rows"; exit 1; }
    sql "DROP TABLE \`$2\`"
  }
  run_mysql_side() {
    case "$1" in
      rowpump_mysql)
        fresh_queue "$queue_table"
        measure rowpump_mysql "$table_rows" "$rowpump_bin" -q backfill --table "$table" --sink "$mysql_sink" --queue "$queue_table"
        expect_rows rowpump "$queue_table" ;;
      client_insert)
        fresh_queue "$insert_table"
        run_stdin="$private_dir/insert.sql"
        measure client_insert "$table_rows" mariadb --defaults-extra-file="$client_config" "$db_name"
        run_stdin=/dev/null
        expect_rows "the mariadb client" "$insert_table" ;;
    esac
  }
  for ((round = 0; round < runs; ++round)); do
    if ((round % 2 == 0)); then order="rowpump_mysql client_insert"; else order="client_insert rowpump_mysql"; fi
    line="mysql round $((round + 1)):"
    for name in $order; do
      run_mysql_side "$name"
      line+=" $name $(last_wall "$name") s;"
    done
    log "${line%;}"
  done
fi
uptime_after="$(uptime_line)"

# ---- results ----------------------------------------------------------------------------------------
rp_wall="$(column_median rowpump 1)"
rows_per_s() { awk -v n="$1" -v w="$2" 'BEGIN { printf "%.0f", n / w }'; }
result_row() {  # label name rows ratio: one row of a results table
  local label="$1" name="$2" rows="$3" ratio="$4"
  awk -v l="$label" -v n="$rows" -v w="$(column_median "$name" 1)" -v x="$ratio" \
      -v rss="$(column_median "$name" 2)" -v cpu="$(column_median "$name" 3)" -v srv="$(column_median "$name" 4)" \
      -v runs="$(joined "$private_dir/$name.times")" \
      'BEGIN { printf "| %s | %d | %.2f | %.0f | %.2fx | %.0f | %.2f | %.2f | %s |\n", l, n, w, n / w, x, rss / 1024, cpu, srv, runs }'
}
simple_wall="$(column_median simple 1)"
simple_table_wall="$(awk -v w="$simple_wall" -v n="$simple_count" -v t="$table_rows" 'BEGIN { printf "%.2f", w * t / n }')"
simple_label="\`php bench/peers/simple.php\` (buffered SELECT, 1 RPUSH per row)"
((simple_count == table_rows)) || simple_label+=" on the first $simple_count rows; its time for the table extrapolated"
human() { awk -v n="$1" 'BEGIN { if (n >= 1e6) printf "%gM", n / 1e6; else if (n >= 1e3) printf "%gk", n / 1e3; else printf "%d", n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { if awk -v v="$1" -v op="$2" -v g="$3" 'BEGIN { exit !((op == ">=") ? v >= g : v < g) }'; then echo met; else echo "**not met**"; fi; }

careful_ratio="$(ratio "$(column_median careful 1)" "$rp_wall")"
mydumper_ratio="$(ratio "$(column_median mydumper 1)" "$rp_wall")"
rss_max_kb="$(column_max rowpump 2)"
[[ ! -s "$private_dir/big.times" ]] || rss_max_kb="$(cat "$private_dir/rowpump.times" "$private_dir/big.times" | cut -d' ' -f2 | sort -n | tail -n1)"
rss_max_mb="$(awk -v k="$rss_max_kb" 'BEGIN { printf "%.0f", k / 1024 }')"

{
  echo "# rowpump backfill against its peers (issue 3)"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $("$rowpump_bin" --version 2>/dev/null || echo rowpump), repository at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?');"
  echo "$(uname -sr), $cores cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo); MariaDB $(sql 'SELECT VERSION()'),"
  echo "Redis $(redis INFO server | tr -d '\r' | sed -n 's/^redis_version://p'), PHP $(php -r 'echo PHP_VERSION;') (php-redis $(php -r 'echo phpversion("redis");')),"
  echo "$(mydumper --version 2>&1 | head -n1 | cut -d, -f1). Produced by \`bench/backfill_vs_peers.sh\`; servers and tools on the same machine."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "## $table_rows rows of \`$table\` into a Redis list"
  echo
  echo "Rounds: $runs, after a warm-up round; the order rotating each round; medians. Every run starts from an"
  echo "empty list and is checked to leave exactly its rows in it. \"rowpump faster by\" = the command's"
  echo "time for the whole table / rowpump's. RSS is the command's peak (GNU time); server CPU is MariaDB + Redis"
  echo "during the run."
  echo
  echo "| command | rows | wall s | rows/s | rowpump faster by | peak RSS MB | user+sys CPU s | server CPU s | runs, wall s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  result_row "\`rowpump backfill --sink redis --queue KEY\` (default workers and ranges)" rowpump "$table_rows" 1
  result_row "\`php bench/peers/careful.php\` (unbuffered SELECT, RPUSH per 1000 rows)" careful "$table_rows" "$careful_ratio"
  result_row "$simple_label" simple "$simple_count" "$(ratio "$simple_table_wall" "$rp_wall")"
  result_row "\`mydumper -t $mydumper_threads -r $mydumper_chunk --no-schemas --no-locks\` to SQL files" mydumper "$table_rows" "$mydumper_ratio"
  echo
  echo "mydumper writes the rows as SQL text to files: no JSON, no queue; it is the floor of getting the rows out."
  if [[ -s "$private_dir/big.times" ]]; then
    echo
    echo "## $big_rows rows (\`$big_table\`, same schema) through rowpump"
    echo
    echo "| command | rows | wall s | rows/s | time / 1M-row median | peak RSS MB | user+sys CPU s | server CPU s | runs, wall s |"
    echo "|---|---|---|---|---|---|---|---|---|"
    big_ratio="$(ratio "$(column_median big 1)" "$rp_wall")"
    result_row "\`rowpump backfill --sink redis\`, $big_rows rows" big "$big_rows" "$big_ratio"
  fi
  if [[ -s "$private_dir/rowpump_mysql.times" ]]; then
    client_wall="$(column_median client_insert 1)"
    echo
    echo "## $table_rows rows into a MySQL queue table"
    echo
    echo "Rounds: $runs, alternating; each run into an empty table made by \`rowpump queue init\`, checked to"
    echo "hold every row afterwards. The client loads a file prepared beforehand (not timed) from rowpump's own"
    echo "payloads: $insert_rows rows per \`INSERT INTO t (payload, available_at) VALUES (...), ...\`, autocommit."
    echo
    echo "| command | rows | wall s | rows/s | rows/s vs client | peak RSS MB | user+sys CPU s | server CPU s | runs, wall s |"
    echo "|---|---|---|---|---|---|---|---|---|"
    mysql_ratio="$(ratio "$client_wall" "$(column_median rowpump_mysql 1)")"
    result_row "\`rowpump backfill --sink mysql --queue TABLE\`" rowpump_mysql "$table_rows" "$mysql_ratio"
    result_row "\`mariadb < insert.sql\` ($insert_rows rows per INSERT)" client_insert "$table_rows" 1
  fi
  echo
  echo "## Goals"
  echo
  echo "| goal | measured | |"
  echo "|---|---|---|"
  echo "| rowpump >= 1.5x faster than careful.php | ${careful_ratio}x | $(verdict "$careful_ratio" '>=' 1.5) |"
  echo "| rowpump >= 1.3x faster than mydumper -t $mydumper_threads | ${mydumper_ratio}x | $(verdict "$mydumper_ratio" '>=' 1.3) |"
  echo "| rowpump peak RSS < 100 MB (largest of its runs) | $rss_max_mb MB | $(verdict "$rss_max_mb" '<' 100) |"
  if [[ -s "$private_dir/big.times" ]]; then
    echo "| $big_rows rows < 4.4x the 1M-row time | ${big_ratio}x | $(verdict "$big_ratio" '<' 4.4) |"
  fi
  [[ -z "${mysql_ratio:-}" ]] || echo "| MySQL queue: rowpump rows/s / client INSERT rows/s (no goal set) | ${mysql_ratio}x | |"
  echo
  echo "![rows per second per tool](backfill_vs_peers.png)"
} >"$private_dir/results.md"

# Chart data: label, rows/s (median), bar colour.
{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC') bench/backfill_vs_peers.sh: label, rows per second (median), colour"
  printf '"%s" %s 0x%s\n' "rowpump -> Redis" "$(rows_per_s "$table_rows" "$rp_wall")" 1f5fbf
  [[ ! -s "$private_dir/big.times" ]] ||
    printf '"%s" %s 0x%s\n' "rowpump -> Redis, $(human "$big_rows") rows" "$(rows_per_s "$big_rows" "$(column_median big 1)")" 5a8fe0
  printf '"%s" %s 0x%s\n' "careful.php -> Redis" "$(rows_per_s "$table_rows" "$(column_median careful 1)")" 9a9a9a
  if ((simple_count == table_rows)); then simple_chart="simple.php -> Redis"; else simple_chart="simple.php -> Redis (first $(human "$simple_count") rows)"; fi
  printf '"%s" %s 0x%s\n' "$simple_chart" "$(rows_per_s "$simple_count" "$simple_wall")" 9a9a9a
  printf '"%s" %s 0x%s\n' "mydumper -t $mydumper_threads -> files" "$(rows_per_s "$table_rows" "$(column_median mydumper 1)")" 9a9a9a
  if [[ -s "$private_dir/rowpump_mysql.times" ]]; then
    printf '"%s" %s 0x%s\n' "rowpump -> MySQL queue" "$(rows_per_s "$table_rows" "$(column_median rowpump_mysql 1)")" 1f5fbf
    printf '"%s" %s 0x%s\n' "mariadb INSERT file -> table" "$(rows_per_s "$table_rows" "$(column_median client_insert 1)")" 9a9a9a
  fi
} >"$private_dir/chart.dat"

results_dir="$(dirname "$results")"
chart="${results%.md}.png"
mkdir -p "$results_dir"
cp "$private_dir/results.md" "$results"
cp "$private_dir/chart.dat" "${results%.md}.dat"
terminal=png
gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo && terminal="pngcairo font 'sans,10'"
bars="$(grep -vc '^#' "$private_dir/chart.dat")"
gnuplot <<EOF
set terminal $terminal size 900,$((120 + 42 * bars))
set output '$chart'
set title "rowpump backfill vs peers, $(human "$table_rows")-row $table unless noted: median of $runs run(s), $(date -u +%Y-%m-%d)"
set xlabel "thousand rows per second (higher is better)"
set style fill solid 0.9 border -1
set yrange [$bars - 0.4:-0.6]
set xrange [0:*]
set offsets 0, graph 0.12, 0, 0
set grid xtics
set ytics nomirror scale 0
unset key
plot '${results%.md}.dat' using (\$2 / 2000):0:(0):(\$2 / 1000):(\$0 - 0.35):(\$0 + 0.35):3:ytic(1) with boxxyerror lc rgb variable, \
     '' using (\$2 / 1000):0:(sprintf(" %.0fk", \$2 / 1000)) with labels left
EOF
cat "$results"
log "written to $results, ${results%.md}.dat and $chart"

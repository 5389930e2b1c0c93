#!/usr/bin/env bash
# Cursor pages against OFFSET (issue 31's goals), side by side on two tables, at depth D = half the table:
#  - items: BENCH_ROWS rows (default 20M) sorted by created_at DESC, id DESC (KEY (created_at));
#  - salaries: a table generated here in SQL with the shape and size of the employees sample database's
#    `salaries` (emp_no INT, salary INT, from_date DATE, to_date DATE, PRIMARY KEY (emp_no, from_date);
#    2,844,047 rows: 300,024 employees spread over emp_no 10001..499999, 1 to 18 salary rows each, about
#    9.5 on average, from_date a year apart), sorted by its primary key emp_no, from_date. It is not the
#    sample database itself, which is not on this machine and is not fetched.
# For each table:
#  1. the server's own durations (SHOW PROFILES, BENCH_RUNS runs each, medians) of the statements: the next
#     page of 20 by keyset at depth 0 and D, the same page by LIMIT D, 20, and the exact jump's deferred join;
#  2. the library in process (build/bench/cursor_jump_bench, Google Benchmark): the next page at depth 0 and
#     D, OFFSET at D, the exact jump to the page at D, the approximate jump (warm bookmarks, and a new
#     Cursor's first jump), BENCH_RUNS repetitions interleaved at random, medians of real time beside the
#     client's CPU; first it checks that keyset, exact jump and OFFSET give the same rows at D, and prints
#     how far each approximate landing is from the row asked (counted exactly) and a token's length; the
#     exact jump warm (its bookmarks counted) and cold (a new Cursor: bookmarks placed, gaps counted to D,
#     then the jump); also what OFFSET and the exact jump from the start read (EXPLAIN, Handler_read_* deltas);
#  3. token encode and verify (build/bench/cursor_token_bench), medians of 5 (once).
# The tables are built once (rows, then the index, sorted) and kept with BENCH_KEEP_TABLE=1.
# BENCH_TABLES="items salaries" (the default) chooses which.
#
#   flock /tmp/rowpump-build.lock bash bench/cursor_vs_offset.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
require_env ROWPUMP_MYSQL_URL
rows="$(setting BENCH_ROWS 20000000 count)"
runs="$(setting BENCH_RUNS 5 count)"
which_tables="${BENCH_TABLES:-items salaries}"
make_private_dir
mysql_connection
items=rp_bench_cursor_items
salaries=rp_bench_cursor_salaries
salaries_rows=2844047
keep="${BENCH_KEEP_TABLE:-0}"
trap '[[ "$keep" == 1 ]] || sql "DROP TABLE IF EXISTS $items, $salaries" || true; rm -rf "$private_dir"' EXIT

# Drops `table` when it is there with another row count; true when it (still) is there.
table_present() {
  local present
  present="$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '$1'")"
  if [[ "$present" == 1 && "$(sql "SELECT COUNT(*) FROM $1")" != "$2" ]]; then
    sql "DROP TABLE $1"
    present=0
  fi
  [[ "$present" == 1 ]]
}

make_items() {
  table_present "$items" "$rows" && return
  local started=$SECONDS
  log "making $items: $rows rows"
  sql "CREATE TABLE $items (id BIGINT NOT NULL PRIMARY KEY, created_at DATETIME NOT NULL, title VARCHAR(40) NOT NULL);
       INSERT INTO $items SELECT seq, '2020-01-01' + INTERVAL (seq * 7919 % 50000000) SECOND, CONCAT('item ', seq)
         FROM seq_1_to_$rows;
       ALTER TABLE $items ADD KEY by_created (created_at); ANALYZE TABLE $items" >/dev/null
  log "made $items in $((SECONDS - started)) s"
}

# Employee e (0..300023) is emp_no 10001 + e * 489998 DIV 300023 (10001 to 499999, strictly rising) and has
# 1 + (e * 7 MOD 17) salary rows (1 to 17, 9 on average), one more for the 143,835 employees whose
# e * 13 MOD 300024 is below 143,835 (13 and 300024 are coprime: exactly that many): 2,844,047 rows in all,
# as in employees.salaries. The first salary starts on a hire date between 1985 and 1998; each runs a year,
# the last to 9999-01-01 as the sample marks a current salary.
make_salaries() {
  table_present "$salaries" "$salaries_rows" && return
  local started=$SECONDS
  log "making $salaries: $salaries_rows rows of employees.salaries' shape"
  sql "CREATE TABLE $salaries (emp_no INT NOT NULL, salary INT NOT NULL, from_date DATE NOT NULL, to_date DATE NOT NULL,
         PRIMARY KEY (emp_no, from_date));
       INSERT INTO $salaries
       SELECT e.emp_no, 38000 + (e.seq * 7919 + k.seq * 1531) % 120000, e.hired + INTERVAL k.seq YEAR,
              IF(k.seq + 1 = e.salaries, '9999-01-01', e.hired + INTERVAL (k.seq + 1) YEAR)
         FROM (SELECT seq, 10001 + seq * 489998 DIV 300023 AS emp_no, '1985-01-01' + INTERVAL (seq * 7919 % 5000) DAY AS hired,
                      1 + seq * 7 % 17 + (seq * 13 % 300024 < 143835) AS salaries
                 FROM seq_0_to_300023) AS e
         JOIN seq_0_to_17 AS k ON k.seq < e.salaries
        ORDER BY e.emp_no, k.seq;
       ANALYZE TABLE $salaries" >/dev/null
  [[ "$(sql "SELECT COUNT(*), COUNT(DISTINCT emp_no), MIN(emp_no), MAX(emp_no) FROM $salaries")" == \
     "$salaries_rows"$'\t'"300024"$'\t'"10001"$'\t'"499999" ]] || fail "$salaries is not of employees.salaries' size"
  log "made $salaries in $((SECONDS - started)) s"
}

# measure TABLE ROWS "C1 C2" DIRECTION "SELECT LIST" INDEX: the goals on one table, sorted by C1 DIR, C2 DIR
# (KEY INDEX on C1, or PRIMARY), as markdown on stdout.
measure() {
  local table="$1" table_rows="$2" c1="${3% *}" c2="${3#* }" dir="$4" columns="$5" index="$6"
  # Kept bookmark counts need the table's UPDATE_TIME (src/cursor/table_version.hpp), which is NULL until a
  # change after InnoDB loads the table (ADD KEY, a restart): the first row removed and put back stamps it,
  # the rows as they were.
  sql "CREATE TEMPORARY TABLE rp_stamp AS SELECT * FROM $table ORDER BY $c1, $c2 LIMIT 1;
       DELETE t FROM $table AS t JOIN rp_stamp USING ($c1, $c2); INSERT INTO $table SELECT * FROM rp_stamp" >/dev/null
  echo "## $table ($table_rows rows; sort $c1 $dir, $c2 $dir)"
  echo
  echo "Load (uptime) before: \`$(uptime_line)\`"
  echo
  local depth=$((table_rows / 2 / 20 * 20))
  local order="ORDER BY $c1 $dir, $c2 $dir" cmp=">"
  [[ "$dir" == DESC ]] && cmp="<"
  local at at1 at2
  at="$(sql "SELECT $c1, $c2 FROM $table $order LIMIT $((depth - 1)), 1")"
  at1="${at%%$'\t'*}"
  at2="${at##*$'\t'}"
  local after="$c1 $cmp= '$at1' AND ($c1 $cmp '$at1' OR ($c1 = '$at1' AND $c2 $cmp '$at2'))"
  local -A statements=(
    [keyset_depth0]="SELECT $columns FROM $table FORCE INDEX ($index) $order LIMIT 21"
    [keyset_depth_half]="SELECT $columns FROM $table FORCE INDEX ($index) WHERE $after $order LIMIT 21"
    [offset_depth_half]="SELECT $columns FROM $table $order LIMIT $depth, 20"
    [exact_jump_depth_half]="SELECT t.* FROM $table AS t JOIN (SELECT $c1, $c2 FROM $table
       $order LIMIT $depth, 21) AS p ON t.$c1 = p.$c1 AND t.$c2 = p.$c2 ORDER BY t.$c1 $dir, t.$c2 $dir"
  )
  # The same rows: the keyset page after row `depth` and OFFSET `depth` start at one row.
  [[ "$(sql "${statements[keyset_depth_half]}" | head -20 | md5sum)" == "$(sql "${statements[offset_depth_half]}" | md5sum)" ]] ||
    fail "$table: the keyset page and the OFFSET page differ"
  [[ "$(sql "SELECT $c1, $c2 FROM (${statements[exact_jump_depth_half]}) AS j" | head -20 | md5sum)" == \
     "$(sql "SELECT $c1, $c2 FROM (${statements[offset_depth_half]}) AS o" | md5sum)" ]] ||
    fail "$table: the exact jump and the OFFSET page differ"

  echo "### The server's durations (SHOW PROFILES; depth $depth of $table_rows rows, page of 20)"
  echo
  echo "| statement | median ms | runs |"
  echo "|---|---|---|"
  local name script ms
  for name in keyset_depth0 keyset_depth_half offset_depth_half exact_jump_depth_half; do
    script="SET profiling = 1; SET profiling_history_size = 100;"
    for ((i = 0; i < runs; i++)); do script+=" ${statements[$name]};"; done
    script+=" SHOW PROFILES;"
    # SHOW PROFILES: Query_ID, Duration (s), Query; the first two are the SETs.
    ms="$(sql "$script" | awk -F'\t' 'NF == 3 && $3 ~ /^SELECT/ { printf "%.3f\n", $2 * 1000 }' | median)"
    echo "| $name | $ms | $runs |"
  done
  echo

  echo "### What OFFSET and the exact jump from the list's start read (EXPLAIN; the session's Handler_read_* and"
  echo "### the server's Innodb_buffer_pool_reads before and after one run of each)"
  echo
  echo '```'
  local counters
  for name in offset_depth_half exact_jump_depth_half; do
    echo "$name:"
    sql "EXPLAIN ${statements[$name]}" | cut -f1-10
    counters="SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME IN
      ('HANDLER_READ_KEY', 'HANDLER_READ_NEXT', 'HANDLER_READ_PREV', 'HANDLER_READ_RND_NEXT', 'INNODB_BUFFER_POOL_READS')"
    sql "$counters; ${statements[$name]}; $counters" |
      awk -F'\t' 'NF == 2 && $1 ~ /^[A-Z_]+$/ { if ($1 in first) printf "  %s: +%d\n", $1, $2 - first[$1]; else first[$1] = $2 }'
  done
  echo '```'
  echo

  local jump_bench="$root/build/bench/cursor_jump_bench"
  if [[ -x "$jump_bench" ]]; then
    echo "### The library in process (cursor_jump_bench; medians of $runs repetitions, interleaved)"
    echo
    echo '```'
    BENCH_CURSOR_TABLE="$table" BENCH_CURSOR_DEPTH="$depth" BENCH_CURSOR_SORT="$c1 $dir, $c2 $dir" \
      BENCH_CURSOR_COLUMNS="${columns//, /,}" "$jump_bench" --benchmark_repetitions="$runs" \
      --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true 2>/dev/null |
      grep -vE "_(mean|stddev|cv) "
    echo '```'
    echo
  else
    log "no $jump_bench: build the bench target to measure the library in process"
  fi
  echo "Load (uptime) after: \`$(uptime_line)\`"
  echo
}

for which in $which_tables; do
  case "$which" in
    items) make_items; measure "$items" "$rows" "created_at id" DESC "id, created_at, title" by_created ;;
    salaries) make_salaries; measure "$salaries" "$salaries_rows" "emp_no from_date" ASC "emp_no, salary, from_date, to_date" PRIMARY ;;
    *) log "BENCH_TABLES: expected items and/or salaries, not $which"; exit 2 ;;
  esac
done

token_bench="$root/build/bench/cursor_token_bench"
if [[ -x "$token_bench" ]]; then
  echo "### Tokens (cursor_token_bench; medians of 5)"
  echo
  echo '```'
  "$token_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "median"
  echo '```'
fi

#!/usr/bin/env bash
# Cursor pages against OFFSET (issue 31's goals) on a table of BENCH_ROWS rows (default 20M) sorted by
# created_at DESC, id DESC (KEY (created_at)), at depth D = half the table:
#  1. the server's own durations (SHOW PROFILES, BENCH_RUNS runs each, medians) of the statements: the next
#     page of 20 by keyset at depth 0 and D, the same page by LIMIT D, 20, and the exact jump's deferred join;
#  2. the library in process (build/bench/cursor_jump_bench, Google Benchmark): the next page at depth 0 and
#     D, OFFSET at D, the exact jump to the page at D, the approximate jump (warm bookmarks, and a new
#     Cursor's first jump), BENCH_RUNS repetitions interleaved at random, medians of real time beside the
#     client's CPU; first it checks that keyset, exact jump and OFFSET give the same rows at D, and prints
#     how far each approximate landing is from the row asked (counted exactly); the exact jump warm (its
#     bookmarks counted) and cold (a new Cursor: bookmarks placed, gaps counted to D, then the jump);
#     also what OFFSET and the exact jump from the start read (EXPLAIN, Handler_read_* deltas);
#  3. token encode and verify (build/bench/cursor_token_bench), medians of 5.
# The table is built once (rows, then the index, sorted) and kept with BENCH_KEEP_TABLE=1.
#
#   flock /tmp/rowpump-build.lock bash bench/cursor_vs_offset.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
require_env ROWPUMP_MYSQL_URL
rows="$(setting BENCH_ROWS 20000000 count)"
runs="$(setting BENCH_RUNS 5 count)"
make_private_dir
mysql_connection
table=rp_bench_cursor_items
keep="${BENCH_KEEP_TABLE:-0}"
trap '[[ "$keep" == 1 ]] || sql "DROP TABLE IF EXISTS $table" || true; rm -rf "$private_dir"' EXIT

present="$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '$table'")"
if [[ "$present" == 1 && "$(sql "SELECT COUNT(*) FROM $table")" != "$rows" ]]; then
  sql "DROP TABLE $table"
  present=0
fi
if [[ "$present" == 0 ]]; then
  started=$SECONDS
  log "making $table: $rows rows"
  sql "CREATE TABLE $table (id BIGINT NOT NULL PRIMARY KEY, created_at DATETIME NOT NULL, title VARCHAR(40) NOT NULL);
       INSERT INTO $table SELECT seq, '2020-01-01' + INTERVAL (seq * 7919 % 50000000) SECOND, CONCAT('item ', seq)
         FROM seq_1_to_$rows;
       ALTER TABLE $table ADD KEY by_created (created_at); ANALYZE TABLE $table" >/dev/null
  log "made $table in $((SECONDS - started)) s"
fi
# Kept bookmark counts need the table's UPDATE_TIME (src/cursor/table_version.hpp), which is NULL until a
# change after InnoDB loads the table (ADD KEY, a restart): one row added and removed stamps it, the rows
# as they were.
sql "INSERT INTO $table VALUES ($((rows + 1)), '2020-01-01', 'stamp'); DELETE FROM $table WHERE id = $((rows + 1))"
echo "Load (uptime) before: \`$(uptime_line)\`"
echo
depth=$((rows / 2 / 20 * 20))
order="ORDER BY created_at DESC, id DESC"
at="$(sql "SELECT created_at, id FROM $table $order LIMIT $((depth - 1)), 1")"
at_time="${at%%$'\t'*}"
at_id="${at##*$'\t'}"
after="created_at <= '$at_time' AND (created_at < '$at_time' OR (created_at = '$at_time' AND id < $at_id))"

declare -A statements=(
  [keyset_depth0]="SELECT id, created_at, title FROM $table FORCE INDEX (by_created) $order LIMIT 21"
  [keyset_depth_half]="SELECT id, created_at, title FROM $table FORCE INDEX (by_created) WHERE $after $order LIMIT 21"
  [offset_depth_half]="SELECT id, created_at, title FROM $table $order LIMIT $depth, 20"
  [exact_jump_depth_half]="SELECT t.id, t.created_at, t.title FROM $table AS t JOIN (SELECT created_at, id FROM $table
     $order LIMIT $depth, 21) AS p ON t.created_at = p.created_at AND t.id = p.id ORDER BY t.created_at DESC, t.id DESC"
)
# The same rows: the keyset page after row `depth` and OFFSET `depth` start at one row.
[[ "$(sql "${statements[keyset_depth_half]}" | head -20 | md5sum)" == "$(sql "${statements[offset_depth_half]}" | md5sum)" ]] ||
  fail "the keyset page and the OFFSET page differ"
[[ "$(sql "${statements[exact_jump_depth_half]}" | head -20 | md5sum)" == "$(sql "${statements[offset_depth_half]}" | md5sum)" ]] ||
  fail "the exact jump and the OFFSET page differ"

echo "### The server's durations (SHOW PROFILES; depth $depth of $rows rows, page of 20)"
echo
echo "| statement | median ms | runs |"
echo "|---|---|---|"
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

jump_bench="$root/build/bench/cursor_jump_bench"
if [[ -x "$jump_bench" ]]; then
  echo "### The library in process (cursor_jump_bench; medians of $runs repetitions, interleaved)"
  echo
  echo '```'
  BENCH_CURSOR_TABLE="$table" BENCH_CURSOR_DEPTH="$depth" "$jump_bench" --benchmark_repetitions="$runs" \
    --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true 2>/dev/null |
    grep -vE "_(mean|stddev|cv) "
  echo '```'
  echo
else
  log "no $jump_bench: build the bench target to measure the library in process"
fi

token_bench="$root/build/bench/cursor_token_bench"
if [[ -x "$token_bench" ]]; then
  echo "### Tokens (cursor_token_bench; medians of 5)"
  echo
  echo '```'
  "$token_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "median"
  echo '```'
fi
echo
echo "Load (uptime) after: \`$(uptime_line)\`"

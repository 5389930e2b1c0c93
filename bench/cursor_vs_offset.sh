#!/usr/bin/env bash
# Cursor pages against OFFSET (issue 31), on a table of BENCH_ROWS rows (default 2M) sorted by
# created_at DESC, id DESC (KEY (created_at)): the next page of 20 at depth 0 and at half the table by
# keyset (the statement a Cursor sends after a token), the same page by LIMIT depth, 20, and the exact
# jump's deferred join to that page. Server-side durations from SHOW PROFILES, BENCH_RUNS (default 7)
# runs of each, medians; then the token micro-benchmark (build/bench/cursor_token_bench) when built.
#
#   flock /tmp/rowpump-build.lock bash bench/cursor_vs_offset.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
require_env ROWPUMP_MYSQL_URL
rows="$(setting BENCH_ROWS 2000000 count)"
runs="$(setting BENCH_RUNS 7 count)"
make_private_dir
mysql_connection
table=rp_bench_cursor_items
trap 'sql "DROP TABLE IF EXISTS $table" || true; rm -rf "$private_dir"' EXIT

if [[ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '$table'")" == 0 ]]; then
  log "making $table: $rows rows"
  sql "CREATE TABLE $table (id BIGINT NOT NULL PRIMARY KEY, created_at DATETIME NOT NULL, title VARCHAR(40) NOT NULL,
         KEY by_created (created_at));
       INSERT INTO $table SELECT seq, '2020-01-01' + INTERVAL (seq * 7919 % 50000000) SECOND, CONCAT('item ', seq)
         FROM seq_1_to_$rows; ANALYZE TABLE $table" >/dev/null
fi
depth=$((rows / 2))
order="ORDER BY created_at DESC, id DESC"
at="$(sql "SELECT created_at, id FROM $table $order LIMIT $((depth - 1)), 1")"
at_time="${at%%$'\t'*}"
at_id="${at##*$'\t'}"
after="created_at <= '$at_time' AND (created_at < '$at_time' OR (created_at = '$at_time' AND id < $at_id))"

declare -A statements=(
  [keyset_depth0]="SELECT id, created_at, title FROM $table $order LIMIT 21"
  [keyset_depth_half]="SELECT id, created_at, title FROM $table WHERE $after $order LIMIT 21"
  [offset_depth_half]="SELECT id, created_at, title FROM $table $order LIMIT $depth, 20"
  [exact_jump_depth_half]="SELECT t.id, t.created_at, t.title FROM $table AS t JOIN (SELECT created_at, id FROM $table
     $order LIMIT $depth, 21) AS p ON t.created_at = p.created_at AND t.id = p.id ORDER BY t.created_at DESC, t.id DESC"
)
# The same rows: the keyset page after row `depth` and OFFSET `depth` start at one row.
[[ "$(sql "${statements[keyset_depth_half]}" | head -20 | md5sum)" == "$(sql "${statements[offset_depth_half]}" | md5sum)" ]] ||
  fail "the keyset page and the OFFSET page differ"
[[ "$(sql "${statements[exact_jump_depth_half]}" | head -20 | md5sum)" == "$(sql "${statements[offset_depth_half]}" | md5sum)" ]] ||
  fail "the exact jump and the OFFSET page differ"

echo "| statement (depth $depth of $rows rows, page of 20) | median ms | runs |"
echo "|---|---|---|"
for name in keyset_depth0 keyset_depth_half offset_depth_half exact_jump_depth_half; do
  script="SET profiling = 1; SET profiling_history_size = 100;"
  for ((i = 0; i < runs; i++)); do script+=" ${statements[$name]};"; done
  script+=" SHOW PROFILES;"
  # SHOW PROFILES: Query_ID, Duration (s), Query; the first two are the SETs.
  ms="$(sql "$script" | awk -F'\t' 'NF == 3 && $3 ~ /^SELECT/ { printf "%.3f\n", $2 * 1000 }' | median)"
  echo "| $name | $ms | $runs |"
done

token_bench="$root/build/bench/cursor_token_bench"
if [[ -x "$token_bench" ]]; then
  "$token_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "median"
fi

#!/usr/bin/env bash
# The quick start: installs what is missing, builds rowpump, starts the private MariaDB and Redis,
# makes a 300000-row sample table and runs one rowpump job over it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
state_dir="${ROWPUMP_STATE_DIR:-$root/.state}"
sample_rows=300000

bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --target rowpump -j2
bash scripts/services.sh start >/dev/null
eval "$(bash scripts/services.sh env)"

sql() {
  MYSQL_PWD=rowpump-local mariadb --no-defaults --protocol=tcp -h127.0.0.1 \
    -P"${ROWPUMP_MARIADB_PORT:-3407}" -urowpump --default-character-set=utf8mb4 rowpump "$@"
}

existing_rows="$(sql -N -e "SELECT COUNT(*) FROM sample_orders" 2>/dev/null || echo none)"
if [[ "$existing_rows" != "$sample_rows" ]]; then
  echo "quickstart: creating rowpump.sample_orders ($sample_rows rows)"
  sql <scripts/sample_table.sql
else
  echo "quickstart: rowpump.sample_orders already has $sample_rows rows"
fi

# ---- the job: the one place where the quick start runs rowpump --------------------------------
# The main job: split sample_orders into 4 key ranges and stream them with 2 workers into a Redis list.
queue="rowpump:quickstart:orders"
redis-cli -u "$ROWPUMP_REDIS_URL" del "$queue" >/dev/null
started_ns="$(date +%s%N)"
# The MySQL URL, with its password, comes from $ROWPUMP_MYSQL_URL: never put a password on a command line.
build/rowpump backfill --table sample_orders --partitions 4 --workers 2 \
  --sink "$ROWPUMP_REDIS_URL" --queue "$queue" --summary-json "$state_dir/quickstart-summary.json"
finished_ns="$(date +%s%N)"
# -----------------------------------------------------------------------------------------------

elapsed_ms=$(( (finished_ns - started_ns) / 1000000 ))
echo
echo "rowpump backfill of sample_orders into the Redis list $queue"
echo "tasks in the list: $(redis-cli -u "$ROWPUMP_REDIS_URL" llen "$queue")"
echo "first 3 tasks:"
redis-cli -u "$ROWPUMP_REDIS_URL" --raw lrange "$queue" 0 2
echo "summary: $state_dir/quickstart-summary.json"
printf 'time: %d.%03d s\n' $(( elapsed_ms / 1000 )) $(( elapsed_ms % 1000 ))

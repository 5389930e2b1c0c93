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
output="$state_dir/sample_orders.ndjson"
job_description="rowpump read of sample_orders into $output"
started_ns="$(date +%s%N)"
build/rowpump read --mysql "$ROWPUMP_MYSQL_URL" --table sample_orders --page-size 5000 >"$output"
finished_ns="$(date +%s%N)"
# -----------------------------------------------------------------------------------------------

elapsed_ms=$(( (finished_ns - started_ns) / 1000000 ))
echo
echo "$job_description"
echo "lines: $(wc -l <"$output")"
echo "first 3 lines:"
head -n 3 "$output"
printf 'time: %d.%03d s\n' $(( elapsed_ms / 1000 )) $(( elapsed_ms % 1000 ))

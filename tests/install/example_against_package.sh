#!/usr/bin/env bash
# Runs the examples built against the installed package (build_examples.sh's OUT: OUT/prefix, OUT/examples)
# on the local servers and checks what they did: bulk_enqueue's tasks and rows, and consume_tasks's run of
# its own consumers. Also that no public header pulls in a driver header.
#
#   tests/install/example_against_package.sh OUT
set -euo pipefail
installed="$1"
queue="rp_test:example:$$"
consumed="rp_test:example_consume:$$"
cleanup() {
  redis-cli -u "$ROWPUMP_REDIS_URL" del "$queue" "$queue:rows" "$consumed" "$consumed:dead" "$consumed:delayed" \
    "$consumed:attempts" "$consumed:consumers" >/dev/null 2>&1 || true
  mariadb_cli -e "DROP TABLE IF EXISTS rp_test_example_$$" >/dev/null 2>&1 || true
}
# The URL may hold the password (mysql://user:pass@...) or leave it to ROWPUMP_MYSQL_PASSWORD.
mariadb_cli() {
  [[ "$ROWPUMP_MYSQL_URL" =~ ^mysql://([^:@]+)(:([^@]*))?@([^:/]+):([0-9]+)/([^?]*) ]] || return 1
  MYSQL_PWD="${BASH_REMATCH[3]:-${ROWPUMP_MYSQL_PASSWORD:-}}" mariadb --no-defaults --protocol=tcp \
    -h"${BASH_REMATCH[4]}" -P"${BASH_REMATCH[5]}" -u"${BASH_REMATCH[1]}" "${BASH_REMATCH[6]}" "$@"
}
trap cleanup EXIT
: "${ROWPUMP_REDIS_URL:?run scripts/services.sh start and eval its env}"
: "${ROWPUMP_MYSQL_URL:?run scripts/services.sh start and eval its env}"

# The public headers must not pull in any driver header.
if grep -rlE '#include <(cppconn|mysql_|hiredis|oneapi|tbb|yaml-cpp|spdlog|rapidjson)' "$installed/prefix/include/rowpump"; then
  echo "a public header includes a driver header" >&2
  exit 1
fi
table="rp_test_example_$$"
mariadb_cli -e "CREATE TABLE $table (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO $table SELECT seq, 'x' FROM seq_1_to_500"
output="$("$installed/examples/bulk_enqueue" "$queue" "$table")"
echo "$output"
[[ "$output" == $'enqueued 1000 tasks\njob wrote 500 rows' ]] || { echo "unexpected output" >&2; exit 1; }
tasks="$(redis-cli -u "$ROWPUMP_REDIS_URL" llen "$queue")"
rows="$(redis-cli -u "$ROWPUMP_REDIS_URL" llen "$queue:rows")"
[[ "$tasks" == 1000 && "$rows" == 500 ]] || { echo "expected 1000 tasks and 500 rows, found $tasks and $rows" >&2; exit 1; }
echo "example built against the installed package: $tasks tasks enqueued, $rows rows streamed"

# A program that runs its own consumers: 100 tasks, every tenth retried once, task 7 given up as dead.
output="$("$installed/examples/consume_tasks" "$consumed")"
echo "$output"
expected="consumed 100 tasks: 99 done, 10 retried, 1 dead, 99 done exactly once, queue drained"
[[ "$output" == "$expected" ]] || { echo "unexpected output, expected: $expected" >&2; exit 1; }
left="$(redis-cli -u "$ROWPUMP_REDIS_URL" llen "$consumed")"
dead="$(redis-cli -u "$ROWPUMP_REDIS_URL" lrange "$consumed:dead" 0 -1)"
[[ "$left" == 0 && "$dead" == '{"task":7}' ]] || { echo "expected an empty queue and task 7 dead, found $left ready and dead: $dead" >&2; exit 1; }
echo "consumers embedded in a program drained their queue: task 7 dead, the others done once"

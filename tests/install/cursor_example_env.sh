# Sourced by the tests of examples/cursor_http.cpp: a table of 200 items whose created_at repeats (ties
# broken by id), the ids in the list's order (created_at DESC, id DESC) in $work/expected, and the example
# started on a free loopback port over it ($base_url). Everything is removed on exit.
#
#   source tests/install/cursor_example_env.sh EXAMPLES_DIR
examples_dir="$1"
example="$examples_dir/cursor_http"
[[ -x "$example" ]] || { echo "$example was not built (is libcpp-httplib-dev installed?)" >&2; exit 1; }
: "${ROWPUMP_MYSQL_URL:?source the environment of the local servers}"
work="$(mktemp -d)"
table="rp_test_cursor_http_$$"
example_pid=""

# The URL may hold the password (mysql://user:pass@...) or leave it to ROWPUMP_MYSQL_PASSWORD.
mariadb_cli() {
  [[ "$ROWPUMP_MYSQL_URL" =~ ^mysql://([^:@]+)(:([^@]*))?@([^:/]+):([0-9]+)/([^?]*) ]] || return 1
  MYSQL_PWD="${BASH_REMATCH[3]:-${ROWPUMP_MYSQL_PASSWORD:-}}" mariadb --no-defaults --protocol=tcp -N -B \
    -h"${BASH_REMATCH[4]}" -P"${BASH_REMATCH[5]}" -u"${BASH_REMATCH[1]}" "${BASH_REMATCH[6]}" "$@"
}
cleanup() {
  if [[ -n "$example_pid" ]]; then
    kill "$example_pid" 2>/dev/null || true
    wait "$example_pid" 2>/dev/null || true  # 143: it ended on the TERM
  fi
  mariadb_cli -e "DROP TABLE IF EXISTS $table" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

mariadb_cli -e "CREATE TABLE $table (id BIGINT NOT NULL PRIMARY KEY, created_at DATETIME NOT NULL,
                  title VARCHAR(40) NOT NULL, KEY by_created (created_at));
                INSERT INTO $table SELECT seq, '2024-01-01' + INTERVAL (seq * 7919 % 97) MINUTE, CONCAT('item ', seq)
                  FROM seq_1_to_200; ANALYZE TABLE $table" >/dev/null
mariadb_cli -e "SELECT id FROM $table ORDER BY created_at DESC, id DESC" > "$work/expected"
# Ids from..to (1-based lines of the list), one a line, as the pages should show them.
expected_ids() { sed -n "$1,$2p" "$work/expected"; }

export ROWPUMP_CURSOR_KEY="cursor-example-test-key-$$-0123456789"
mkfifo "$work/started"
"$example" "$table" 'created_at DESC, id DESC' > "$work/started" 2> "$work/example.err" &
example_pid=$!
# The example prints its address once it listens; a read with a deadline waits for that line.
if ! read -r -t 20 line < "$work/started" || [[ "$line" != "listening on http://127.0.0.1:"* ]]; then
  echo "the example did not start: ${line:-no output}; $(cat "$work/example.err")" >&2
  exit 1
fi
base_url="${line#listening on }"

#!/usr/bin/env bash
# Each driver lives behind one wall: Connector/C++ and MariaDB Connector/C in src/mysql, hiredis and
# OpenSSL (TLS to Redis, on the socket src/redis owns) in src/redis, oneTBB in src/run; OpenSSL's
# SHA-256 and HMAC also in src/crypto (cursor tokens). Everything else
# sees rowpump's own types (mysql::Rows and RowCells, redis::Reply, the run/ interfaces). The HTTP endpoint is rowpump's own code (src/http), on no driver.
# A failure lists each line that crosses a wall as FILE:LINE: text.
#
#   tests/docs/driver_walls.sh [ROOT]    ROOT: the tree to check (default: this repository)
set -euo pipefail

root="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd -P)"
cd "$root"

failures=0
# check WALL NAME PATTERN: no C++ source outside WALL (a folder under src/, or folders as a|b) may match PATTERN.
# A fourth argument replaces src/WALL/ as the place allowed (a path pattern of its own).
check() {
  local wall="$1" name="$2" pattern="$3" allowed="${4:-src/($1)/}" hits
  hits="$(grep -rnP --include='*.cpp' --include='*.hpp' --include='*.h' "$pattern" src include tests bench examples |
            grep -vE "^$allowed" || true)"
  if [[ -n "$hits" ]]; then
    echo "$name is used outside src/$wall (move the code behind the wall, or give it rowpump's own type):"
    echo "$hits"
    failures=$((failures + 1))
  fi
}

# The drivers' headers: system headers, in angle brackets (rowpump's own "mysql/..." are its wall's API).
check mysql "a Connector/C++ header" '#\s*include\s*<(cppconn/|jdbc/|mysql_driver\.h|mysql_connection\.h|mysqlx/)'
check mysql "a MariaDB Connector/C header" '#\s*include\s*<(mysql\.h|mysql/|mariadb/|errmsg\.h|mysqld_error\.h|ma_[a-z_]+\.h|mysql_com\.h)'
check redis "a hiredis header" '#\s*include\s*<(hiredis/|hiredis\.h|async\.h)'
check 'redis|crypto' "an OpenSSL header" '#\s*include\s*<openssl/'
check run "a oneTBB header" '#\s*include\s*<(tbb/|oneapi/)'
# Their types and calls. `sql::` is Connector/C++'s namespace; rowpump's own `mysql::` does not count.
check mysql "a Connector/C++ type" '(?<![A-Za-z_:])sql::|\bSQLString\b|\bResultSet\b|asStdString\(\)'
check mysql "a MariaDB Connector/C type or call" '\b(MYSQL|MYSQL_RES|MYSQL_FIELD|MYSQL_STMT)\s*\*|\b(MYSQL_ROW|MYSQL_BIND)\b|\bmysql_(init|close|real_\w+|use_result|store_result|fetch_\w+|free_result|num_\w+|errno|error|sqlstate|options4?|ping|stmt_\w+|library_\w+|set_\w+|field_count|affected_rows|next_result|thread_id|select_db)\s*\('
check redis "a hiredis type or call" '\b(redisContext|redisReply|redisCommand\w*|redisAppend\w*|redisGetReply|redisReader\w*|freeReplyObject)\b'
check 'redis|crypto' "an OpenSSL type or call" '\b(SSL_CTX|SSL_\w+\s*\(|X509_V_\w+|X509_VERIFY_PARAM\w*|ERR_\w+\s*\()'
check run "a oneTBB type" '\b(tbb|oneapi)::'
# cpp-httplib serves the cursor example only: the library's own HTTP is src/http, on no driver.
check examples "cpp-httplib" '#\s*include\s*<httplib\.h>|\bhttplib::' 'examples/'

if ((failures > 0)); then
  echo "$failures driver wall(s) crossed"
  exit 1
fi
echo "every driver stays behind its wall"

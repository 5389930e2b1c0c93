# shellcheck shell=bash disable=SC2034  # (the globals set here are for the sourcing scripts)
# Sourced first by the bench/*.sh scripts (after their `set -euo pipefail`; by those that measure, through
# lib/measure.sh): $root (the checkout), log, the BENCH_* settings, the load-average guard, a private temp dir,
# MySQL and Redis connections from ROWPUMP_MYSQL_URL / ROWPUMP_REDIS_URL with no password on any command line,
# rowpump's sink URLs with password files, server CPU ticks, medians.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bench_name="$(basename "$0")"
cores="$(nproc)"
# The rowpump each script measures: ROWPUMP_BIN, or this checkout's build.
rowpump_bin="${ROWPUMP_BIN:-$root/build/rowpump}"
log() { echo "$bench_name: $*" >&2; }

# require_env NAME: exits 2, with the hint, when the connection variable NAME is empty.
require_env() {
  [[ -n "${!1:-}" ]] || { log "$1 is not set; run: eval \"\$(scripts/services.sh env)\""; exit 2; }
}

# require_rowpump PATH
require_rowpump() {
  [[ -x "$1" ]] || { log "no rowpump binary at $1 (build it, or set ROWPUMP_BIN)"; exit 2; }
}

# setting ENV DEFAULT [KIND [HINT]]: prints $ENV, or DEFAULT when ENV is unset or empty, as in
# runs="$(setting BENCH_RUNS 3 count)" (set -e then stops the script on a bad value). A KIND checks the
# value; one that does not fit exits 2 with "bad ENV: VALUE (HINT)". KIND is count (a whole number above
# 0), optional-count (the same, or empty), whole (0 or more), name (a table name), load (a load average),
# sinks (redis and/or mysql), or a regular expression of its own (then give the HINT).
setting() {
  local value="${!1:-$2}" pattern="${3:-}" hint="${4:-}"
  case "$pattern" in
    count) pattern='^[1-9][0-9]*$' hint="${hint:-expected a whole number above 0}" ;;
    optional-count) pattern='^([1-9][0-9]*)?$' hint="${hint:-expected a whole number above 0, or nothing}" ;;
    whole) pattern='^[0-9]+$' hint="${hint:-expected a whole number}" ;;
    name) pattern='^[A-Za-z0-9_]+$' hint="${hint:-expected letters, digits and _}" ;;
    load) pattern='^[0-9]+([.][0-9]+)?$' hint="${hint:-expected a load average}" ;;
    sinks) pattern='^ *(redis|mysql)( +(redis|mysql))* *$' hint="${hint:-redis, mysql}" ;;
  esac
  [[ -z "$pattern" || "$value" =~ $pattern ]] || { log "bad $1: $value ($hint)"; exit 2; }
  printf '%s\n' "$value"
}

# small_mode_rows: the small mode's rows, BENCH_ROWS, else ROWS, else 0 (no small mode: the whole sbtest1).
small_mode_rows() {
  local rows
  rows="$(setting ROWS 0 whole "0: the whole sbtest1")" || exit
  setting BENCH_ROWS "$rows" whole "0: the whole sbtest1"
}

# small_table_rows DEFAULT: for scripts that always read the small table (rp_bench_sbtest_small, the first
# ROWS rows of sbtest1): ROWS, else BENCH_ROWS, else DEFAULT, exported as ROWS for the table's set-up, and
# $small_rows as small_mode_rows gives it.
small_table_rows() {
  ROWS="${ROWS:-${BENCH_ROWS:-$1}}"
  export ROWS
  small_rows="$(small_mode_rows)"
}

# results_file NAME [SMALL_ROWS]: $results, where the script writes its markdown: BENCH_RESULTS, or NAME
# with .md in bench/results; with SMALL_ROWS above 0 (a small mode) a file under the temp dir instead, so
# small figures never replace the real ones.
results_file() {
  local default="$root/bench/results/$1.md"
  [[ "${2:-0}" == 0 ]] || default="${TMPDIR:-/tmp}/rp_bench_$1.md"
  results="${BENCH_RESULTS:-$default}"
}

# require_tools TOOL...: exits 2, naming the first one missing from PATH.
require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || { log "$tool is not installed (scripts/setup.sh --bench)"; exit 2; }
  done
}

url_decode() { local s="${1//+/ }"; printf '%b' "${s//%/\\x}"; }

uptime_line() { uptime | sed 's/^ *//'; }

# refuse_when_loaded DEFAULT_MAX_LOAD: wall times on a loaded machine mostly measure the CPU share the runs
# got, so this exits 3 while the 1-minute load average is above BENCH_MAX_LOAD (default DEFAULT_MAX_LOAD,
# mostly $cores), unless BENCH_FORCE is 1. Sets load_before and uptime_before for the results.
refuse_when_loaded() {
  local max_load
  max_load="$(setting BENCH_MAX_LOAD "$1" load)"
  load_before="$(cut -d' ' -f1 /proc/loadavg)"
  uptime_before="$(uptime_line)"
  if [[ "${BENCH_FORCE:-0}" != 1 ]] && awk -v l="$load_before" -v m="$max_load" 'BEGIN { exit !(l > m) }'; then
    log "the 1-minute load average is $load_before on $cores cores (limit $max_load): timings would mostly"
    log "measure the CPU share the runs get. Try again later, or set BENCH_FORCE=1 (or BENCH_MAX_LOAD)."
    exit 3
  fi
}

# make_private_dir [PREFIX]: $private_dir, mode 700, for the option and password files; removed at exit
# (a script that sets its own EXIT trap removes it there).
make_private_dir() {
  private_dir="$(mktemp -d -t "${1:-rp_bench}.XXXXXX")"
  chmod 700 "$private_dir"
  trap 'rm -rf "$private_dir"' EXIT
}

# mysql_connection [OPTION_LINE...]: ROWPUMP_MYSQL_URL, mysql://user[:pass]@host[:port]/db[?query] (the
# password may instead be in ROWPUMP_MYSQL_PASSWORD), into db_user, db_password, db_host, db_port, db_name;
# the clients (mariadb, mydumper, sql) get it through the option file $client_config in $private_dir, with
# the extra option lines, since a command line is readable by every user (ps). Also sets mysql_sink, the
# same URL without its password (see rowpump_password_files).
mysql_connection() {
  local url="$ROWPUMP_MYSQL_URL" rest query="" userinfo hostport db_path
  [[ "$url" == mysql://* ]] || { log "ROWPUMP_MYSQL_URL must start with mysql://"; exit 2; }
  rest="${url#mysql://}"
  [[ "$rest" == *\?* ]] && query="?${rest#*\?}"
  rest="${rest%%\?*}"
  [[ "$rest" == *@* ]] || { log "ROWPUMP_MYSQL_URL has no user (mysql://user:pass@host:port/db)"; exit 2; }
  userinfo="${rest%@*}"
  rest="${rest##*@}"
  hostport="${rest%%/*}"
  db_path="${rest#"$hostport"}"
  db_path="${db_path#/}"
  db_name="$(url_decode "$db_path")"
  db_user="$(url_decode "${userinfo%%:*}")"
  db_password=""
  [[ "$userinfo" == *:* ]] && db_password="$(url_decode "${userinfo#*:}")"
  [[ -n "$db_password" ]] || db_password="${ROWPUMP_MYSQL_PASSWORD:-}"
  db_host="${hostport%%:*}"
  db_port=3306
  [[ "$hostport" == *:* ]] && db_port="${hostport##*:}"
  [[ -n "$db_name" ]] || { log "ROWPUMP_MYSQL_URL names no database"; exit 2; }
  mysql_sink="mysql://${userinfo%%:*}@$hostport/$db_path$query"
  client_config="$private_dir/client.cnf"
  {
    printf '[client]\nhost=%s\nport=%s\nuser=%s\npassword=%s\n' "$db_host" "$db_port" "$db_user" "$db_password"
    (($# == 0)) || printf '%s\n' "$@"
  } >"$client_config"
}

sql() { mariadb --defaults-extra-file="$client_config" --batch -N "$db_name" -e "$1"; }

# Waits (at most 60 s) until InnoDB has flushed what earlier work left dirty (to 1% of the buffer pool:
# it leaves a few hundred pages dirty at idle for good) and purged its undo, so that a run is not charged
# for the page cleaner and purge threads of the work before it. Says how long it waited.
settle_innodb() {
  local started=$SECONDS dirty history total
  total="$(sql "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_total'" | cut -f2)"
  while ((SECONDS - started < 60)); do
    dirty="$(sql "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'" | cut -f2)"
    history="$(sql "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'" | cut -f2)"
    ((${dirty:-0} * 100 <= ${total:-0} && ${history:-0} <= 1000)) && break
    sleep 1
  done
  log "InnoDB settled in $((SECONDS - started)) s (dirty pages ${dirty:-?}, undo history ${history:-?})"
}

# sbtest_table SMALL_ROWS: makes sbtest1 (bench/sysbench_table.sh, a no-op when it is there), then sets
# $table to sbtest1, or in a small mode (SMALL_ROWS above 0) to rp_bench_sbtest_small, made anew from the
# first SMALL_ROWS rows of sbtest1 (the caller drops it at the end), and $rows to the table's rows.
sbtest_table() {
  "$root/bench/sysbench_table.sh"
  table=sbtest1
  if (($1 > 0)); then
    table=rp_bench_sbtest_small
    log "small mode: $table, the first $1 rows of sbtest1"
    sql "DROP TABLE IF EXISTS $table; CREATE TABLE $table LIKE sbtest1;
         INSERT INTO $table SELECT * FROM sbtest1 ORDER BY id LIMIT $1; ANALYZE TABLE $table" >/dev/null
  fi
  rows="$(sql "SELECT COUNT(*) FROM $table")"
}

# use_sbtest_table CLEAR: sbtest_table "$small_rows", with a clean-up at exit that runs CLEAR (the caller's
# function that removes what its runs wrote), drops the small copy it made, and removes the private dir.
use_sbtest_table() {
  bench_clear="$1"
  created_small=0
  clean_up_on_exit sbtest_cleanup
  ((small_rows == 0)) || created_small=1
  sbtest_table "$small_rows"
}
sbtest_cleanup() {
  local status=$?
  trap - EXIT
  "$bench_clear" >/dev/null 2>&1 || true
  ((created_small == 0)) || sql "DROP TABLE IF EXISTS \`rp_bench_sbtest_small\`" 2>/dev/null || true
  shut_down_private_redis
  rm -rf "$private_dir"
  exit "$status"
}

# warm_buffer_pool: reads $table once through the client, so that no timed run pays for cold pages.
warm_buffer_pool() {
  log "warm-up of the buffer pool: a client read of the table"
  mariadb --defaults-extra-file="$client_config" --quick -N -e "SELECT * FROM $table ORDER BY id" "$db_name" >/dev/null
}

# redis_connection: ROWPUMP_REDIS_URL, redis://[[user]:pass@]host[:port][/db][?query], into redis_user
# (still URL-encoded), redis_auth (the password), redis_host, redis_port, redis_db and redis_sink, the URL
# without its password. redis ARGS... runs redis-cli on it, the password in REDISCLI_AUTH.
redis_connection() {
  local rest="${ROWPUMP_REDIS_URL#redis://}" query="" userinfo hostport
  [[ "$rest" == *\?* ]] && query="?${rest#*\?}"
  rest="${rest%%\?*}"
  redis_auth=""
  redis_user=""
  if [[ "$rest" == *@* ]]; then
    userinfo="${rest%@*}"
    rest="${rest##*@}"
    if [[ "$userinfo" == *:* ]]; then
      redis_user="${userinfo%%:*}"
      redis_auth="$(url_decode "${userinfo#*:}")"
    else
      redis_user="$userinfo"
    fi
  fi
  hostport="${rest%%/*}"
  redis_host="${hostport%%:*}"
  redis_port=6379
  [[ "$hostport" == *:* ]] && redis_port="${hostport##*:}"
  redis_db=0
  [[ "$rest" == */* && -n "${rest#*/}" ]] && redis_db="${rest#*/}"
  redis_sink="redis://${redis_user:+$redis_user@}$hostport/$redis_db$query"
}

redis() {
  local user_args=()
  [[ -z "$redis_user" ]] || user_args=(--user "$(url_decode "$redis_user")")
  if [[ -n "$redis_auth" ]]; then
    REDISCLI_AUTH="$redis_auth" redis-cli -h "$redis_host" -p "$redis_port" -n "$redis_db" "${user_args[@]}" "$@"
  else
    redis-cli -h "$redis_host" -p "$redis_port" -n "$redis_db" "$@"
  fi
}

# rowpump_password_files: rowpump gets $mysql_sink / $redis_sink on its command line, so the passwords go
# through ROWPUMP_MYSQL_PASSWORD_FILE and ROWPUMP_REDIS_PASSWORD_FILE, files in $private_dir.
rowpump_password_files() {
  if [[ -n "${db_password:-}" ]]; then
    printf '%s' "$db_password" >"$private_dir/mysql.password"
    export ROWPUMP_MYSQL_PASSWORD_FILE="$private_dir/mysql.password"
  fi
  if [[ -n "${redis_auth:-}" ]]; then
    printf '%s' "$redis_auth" >"$private_dir/redis.password"
    export ROWPUMP_REDIS_PASSWORD_FILE="$private_dir/redis.password"
  fi
}

# connect_servers PREFIX [MYSQL_OPTION_LINE...]: the private dir (make_private_dir PREFIX), both servers'
# connections (mysql_connection with the option lines, redis_connection) and rowpump's password files.
connect_servers() {
  make_private_dir "$1"
  mysql_connection "${@:2}"
  redis_connection
  rowpump_password_files
}

# use_redis_db DB: later `redis` calls go to Redis database DB instead of the URL's, and redis_db_url is
# rowpump's URL of it (no password: rowpump_password_files passes that). Sidekiq's and Celery's fixed key
# names (such as `queues`) so stay out of the queue's own database.
use_redis_db() {
  redis_db="$1"
  redis_db_url="redis://${redis_user:+$redis_user@}$redis_host:$redis_port/$1"
}

# clean_up_on_exit FUNCTION: FUNCTION runs at exit, also after SIGINT (exit 130) or SIGTERM (exit 143). It
# starts with `trap - EXIT` and ends with `exit "$status"` (status=$? first).
clean_up_on_exit() {
  # shellcheck disable=SC2064  # the function's name is meant to expand now
  trap "$1" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

fail() { log "$*"; exit 1; }

# private_redis PORT: a redis-server of the script's own on 127.0.0.1:PORT (no persistence, the default
# encodings), for the benches that must not count other sessions' work on a shared server. Its files go in
# $private_dir (make_private_dir first); at exit it is shut down and the dir removed (also by use_sbtest_table's
# clean-up, for a script that sets that one after this). Exits 2 when PORT already answers (that would be
# some other server), 1 when the new one does not answer. Sets private_redis_pid once it answers.
private_redis() {
  redis-cli -p "$1" PING >/dev/null 2>&1 &&
    { log "port $1 already answers as a Redis server; set BENCH_PORT to a free port"; exit 2; }
  private_redis_port="$1"
  redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$private_dir/redis.pid" --dir "$private_dir" >/dev/null
  clean_up_on_exit stop_private_redis
  local _
  for _ in $(seq 50); do redis-cli -p "$1" PING >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$1" PING >/dev/null 2>&1 || fail "the private redis-server on port $1 does not answer after 5 s"
  private_redis_pid="$(cat "$private_dir/redis.pid")"
}
shut_down_private_redis() {
  [[ -z "${private_redis_port:-}" ]] || redis-cli -p "$private_redis_port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
}
stop_private_redis() {
  local status=$?
  trap - EXIT
  shut_down_private_redis
  rm -rf "$private_dir"
  exit "$status"
}

# use_private_redis: later `redis` calls, and $redis_sink (rowpump's and the peers' URL), go to the server
# private_redis started, which has no password.
use_private_redis() {
  redis_host=127.0.0.1 redis_port="$private_redis_port" redis_db=0 redis_user="" redis_auth=""
  redis_sink="redis://127.0.0.1:$private_redis_port/0"
  unset ROWPUMP_REDIS_PASSWORD_FILE
}

# settle_redis SECONDS: after a clean-up, waits (at most SECONDS, then fails) until Redis's INFO memory says
# lazyfree_pending_objects:0 (UNLINK and FLUSHALL ASYNC free big keys on a background thread), then has
# jemalloc hand back the freed pages at once (MEMORY PURGE, which returns when done): otherwise its
# background thread returns them over the next seconds, and a run that starts meanwhile is charged for the
# freeing of the work before it (Redis CPU counts every thread).
settle_redis() {
  local started=$SECONDS pending
  while :; do
    pending="$(redis INFO memory | tr -d '\r' | sed -n 's/^lazyfree_pending_objects://p')"
    [[ "$pending" =~ ^[0-9]+$ ]] || fail "Redis's INFO memory has no lazyfree_pending_objects (got: '$pending')"
    ((pending == 0)) && break
    ((SECONDS - started < $1)) || fail "Redis still had $pending objects to free in the background after $1 s"
    sleep 0.1
  done
  [[ "$(redis MEMORY PURGE)" == OK ]] || fail "Redis refused MEMORY PURGE"
}

# service_pid mariadb|redis: the pid of scripts/services.sh's server (pid file under ROWPUMP_STATE_DIR,
# default .state), or nothing when it is not known or not running.
service_pid() {
  local file pid
  case "$1" in
    mariadb) file=mariadb/mariadbd.pid ;;
    redis) file=redis/redis-server.pid ;;
  esac
  pid="$(tr -dc 0-9 2>/dev/null <"${ROWPUMP_STATE_DIR:-$root/.state}/$file" || true)"
  if [[ -n "$pid" && -r "/proc/$pid/stat" ]]; then echo "$pid"; fi
}

# server_pid mariadb|redis: the local server's pid, from BENCH_MARIADB_PID / BENCH_REDIS_PID, else the pid
# file of scripts/services.sh, else the server's own answer (@@pid_file for MariaDB, INFO server's
# process_id for Redis); nothing unless /proc/PID is a mariadbd/mysqld or redis-server process, as a
# remote server's pid would count some other process's CPU. Needs mysql_connection / redis_connection.
server_pid() {
  local pid="" comm
  case "$1" in
    mariadb)
      pid="${BENCH_MARIADB_PID:-$(service_pid mariadb)}"
      [[ -n "$pid" ]] || pid="$(tr -dc 0-9 2>/dev/null <"$(sql 'SELECT @@pid_file' 2>/dev/null)" || true)" ;;
    redis)
      pid="${BENCH_REDIS_PID:-$(service_pid redis)}"
      [[ -n "$pid" ]] || pid="$(redis INFO server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')" ;;
  esac
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  comm="$(cat "/proc/$pid/comm" 2>/dev/null || true)"
  case "$1:$comm" in
    mariadb:mariadbd | mariadb:mysqld | redis:redis-server) echo "$pid" ;;
  esac
}

# cpu_ticks PID...: the CPU the processes have used (utime + stime, fields 14 and 15 of /proc/PID/stat,
# counted after the command name), in clock ticks, summed; 0 for none.
cpu_ticks() {
  local pid total=0 ticks
  for pid in "$@"; do
    ticks="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }')" || ticks=0
    total=$((total + ${ticks:-0}))
  done
  echo "$total"
}

# median [FILE]: the median of the numbers, one a line, in FILE or stdin.
median() { sort -n "$@" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# column_median NAME N: the median of column N of $private_dir/NAME.times.
column_median() { cut -d' ' -f"$2" "$private_dir/$1.times" | median; }
# joined FILE: the first column of FILE as "a, b, c", the single runs in a results table.
joined() { cut -d' ' -f1 "$1" | paste -sd' ' | sed 's/ /, /g'; }

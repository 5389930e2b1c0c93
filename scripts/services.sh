#!/usr/bin/env bash
# A private MariaDB and a private Redis for rowpump's tests and quick start: bound to 127.0.0.1, on
# non-default ports, with every file under the project's .state/ folder. Never a system service.
#
#   scripts/services.sh start    start them all (leaves running ones alone), then print the env lines
#   scripts/services.sh stop     stop them all
#   scripts/services.sh status   say what runs (exit 0 when all run, 3 otherwise)
#   scripts/services.sh env      print the export lines:  eval "$(scripts/services.sh env)"
#   scripts/services.sh start-tls  start only the MariaDB that requires TLS (start starts it too)
#   scripts/services.sh start-redis-cluster | stop-redis-cluster   only the Redis Cluster (6 nodes, 6501-6506)
#   scripts/services.sh start-redis-extras | stop-redis-extras   only the TLS Redis and the Sentinel setup
#     (scripts/services/redis_tls.sh, redis_sentinel.sh; start and stop include them)
#   scripts/services.sh start-redis-tls-cluster | stop-redis-tls-cluster   only the TLS Redis Cluster (3 masters,
#     6511-6513, scripts/services/redis_tls_cluster.sh; start and stop include it)
#
# The replica is a second mariadbd that replicates from the first through its binary log, for the tests of
# the replica-lag throttle (they stop its SQL thread). It starts from the first one's schema, not its rows.
#
# Environment: ROWPUMP_MARIADB_PORT (3407), ROWPUMP_REPLICA_PORT (3408), ROWPUMP_REDIS_PORT (6479),
# ROWPUMP_STATE_DIR (.state), ROWPUMP_SERVICE_WAIT (seconds to wait for a server to start or stop, 60),
# ROWPUMP_TLS_MARIADB_PORT (3417, the MariaDB that requires TLS; start and stop include it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
state_dir="${ROWPUMP_STATE_DIR:-$root/.state}"
[[ "$state_dir" == /* ]] || state_dir="$PWD/$state_dir"
mariadb_port="${ROWPUMP_MARIADB_PORT:-3407}"
redis_port="${ROWPUMP_REDIS_PORT:-6479}"
replica_port="${ROWPUMP_REPLICA_PORT:-3408}"
wait_seconds="${ROWPUMP_SERVICE_WAIT:-60}"

db_name=rowpump
db_user=rowpump
db_password=rowpump-local  # a local, test-only password (also in configs/local.env)

# A unix socket path is limited to 107 bytes: socket_path DIR [TAG] is DIR/mariadbd.sock, or for a deep
# checkout a path in the temp folder named after DIR.
socket_path() {
  local path="$1/mariadbd.sock"
  (( ${#path} <= 100 )) || path="${TMPDIR:-/tmp}/rowpump-mariadbd-${2:+$2-}$(printf '%s' "$1" | cksum | cut -d' ' -f1).sock"
  echo "$path"
}

mariadb_dir="$state_dir/mariadb"
mariadb_data="$mariadb_dir/data"
mariadb_pidfile="$mariadb_dir/mariadbd.pid"
mariadb_log="$mariadb_dir/error.log"
mariadb_socket="$(socket_path "$mariadb_dir")"
replica_dir="$state_dir/mariadb-replica"
replica_data="$replica_dir/data"
replica_pidfile="$replica_dir/mariadbd.pid"
replica_log="$replica_dir/error.log"
replica_socket="$(socket_path "$replica_dir")"
redis_dir="$state_dir/redis"
redis_pidfile="$redis_dir/redis-server.pid"
redis_log="$redis_dir/redis-server.log"


log() { echo "services.sh: $*" >&2; }
die() { log "$*"; exit 1; }

for port in "$mariadb_port" "$redis_port" "$replica_port"; do
  if [[ ! "$port" =~ ^[1-9][0-9]{0,4}$ ]] || (( port > 65535 )); then
    log "bad port: $port"
    exit 2
  fi
done
[[ "$mariadb_port" != "$redis_port" ]] || { log "MariaDB and Redis cannot share port $redis_port"; exit 2; }
[[ "$replica_port" != "$mariadb_port" && "$replica_port" != "$redis_port" ]] ||
  { log "the replica needs a port of its own, not $replica_port"; exit 2; }

# Server binaries live in sbin, which is not on every user's PATH.
find_binary() {
  local name dir
  for name in "$@"; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
    for dir in /usr/sbin /usr/local/sbin /usr/bin; do
      if [[ -x "$dir/$name" ]]; then echo "$dir/$name"; return; fi
    done
  done
  die "none of [$*] found; run scripts/setup.sh"
}

# The pid in $1 when that process is alive (not a zombie waiting to be reaped) and its name matches $2.
live_pid() {
  local pidfile="$1" name="$2" pid stat
  [[ -s "$pidfile" ]] || return 1
  pid="$(tr -dc 0-9 <"$pidfile")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == $name* ]] || return 1
  stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || return 1
  [[ "${stat##*) }" != Z* ]] || return 1
  echo "$pid"
}

# Like kill -0, but a zombie counts as gone.
is_running() {
  local stat
  kill -0 "$1" 2>/dev/null || return 1
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  [[ "${stat##*) }" != Z* ]]
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

show_log_tail() {
  [[ -s "$1" ]] || return 0
  log "last lines of $1:"
  tail -n 25 "$1" >&2
}

# Waits for process $1 to end; false after the bounded wait.
wait_for_exit() {
  local pid="$1" i
  for (( i = 0; i < wait_seconds * 10; i++ )); do
    is_running "$pid" || return 0
    sleep 0.1
  done
  return 1
}

mariadb_pid() { live_pid "$mariadb_pidfile" mariadbd || live_pid "$mariadb_pidfile" mysqld; }

# mariadb-install-db gives the OS user running it an all-privileges account that logs in by unix socket.
admin_user="$(id -un)"

# Runs stdin as SQL on the server whose socket is $1 (default: the primary).
mariadb_admin_sql() {
  "$(find_binary mariadb mysql)" --no-defaults --socket="${1:-$mariadb_socket}" --user="$admin_user" --batch \
    --skip-column-names
}

# mysqld_ping SOCKET: true when the server on SOCKET answers.
mysqld_ping() {
  "$(find_binary mariadb-admin mysqladmin)" --no-defaults --socket="$1" --user="$admin_user" \
    --connect-timeout=2 ping >/dev/null 2>&1
}

# init_datadir LABEL DIR CONFIG DATA: makes the datadir DATA of the server whose state is in DIR, once.
init_datadir() {
  local label="$1" dir="$2" config="$3" data="$4"
  # The marker is written last, so a datadir left by an interrupted initialisation is made anew.
  [[ -e "$dir/initialized" ]] && return 0
  rm -rf -- "$data"
  mkdir -p "$data"
  # Only the OS user running this script administers the server, through the socket; the tests use
  # the password account created afterwards.
  local args=(--defaults-file="$config" --datadir="$data"
    --auth-root-authentication-method=socket --auth-root-socket-user="$admin_user"
    --skip-test-db --skip-name-resolve)
  (( EUID == 0 )) && args+=(--user=root)
  log "initialising the datadir of $label in $data"
  if ! "$(find_binary mariadb-install-db mysql_install_db)" "${args[@]}" >"$dir/install.log" 2>&1; then
    show_log_tail "$dir/install.log"
    die "mariadb-install-db failed for $label (full log: $dir/install.log)"
  fi
  touch "$dir/initialized"
}

# run_mariadbd LABEL DIR CONFIG PORT PORT_SETTING SOCKET [ARG...]: makes sure that the MariaDB server whose
# state is in DIR (data/, mariadbd.pid, error.log) runs and answers on SOCKET; unless it runs already, it
# is started, with its datadir made first, the ARGs added to its command line.
run_mariadbd() {
  local label="$1" dir="$2" config="$3" port="$4" port_setting="$5" socket="$6" pid
  shift 6
  mkdir -p "$dir"
  if pid="$(live_pid "$dir/mariadbd.pid" mariadbd || live_pid "$dir/mariadbd.pid" mysqld)"; then
    log "$label already runs (pid $pid)"
  else
    port_in_use "$port" && die "port $port on 127.0.0.1 is taken by another program; set $port_setting"
    init_datadir "$label" "$dir" "$config" "$dir/data"
    rm -f "$dir/mariadbd.pid"
    local args=(--defaults-file="$config" --datadir="$dir/data" --port="$port" --socket="$socket"
      --pid-file="$dir/mariadbd.pid" --log-error="$dir/error.log" "$@")
    (( EUID == 0 )) && args+=(--user=root)
    # Its own session, so a Ctrl-C in the terminal that started it does not reach it.
    setsid "$(find_binary mariadbd mysqld)" "${args[@]}" </dev/null >>"$dir/error.log" 2>&1 &
    pid=$!
    log "starting $label on 127.0.0.1:$port (pid $pid)"
  fi
  wait_until_up "$label" "$dir/error.log" "$pid" mysqld_ping "$socket"
}

# wait_until_up LABEL LOG PID PING...: runs PING every 0.25 s until it succeeds; fails, with the end of
# LOG, when process PID (unless empty) exits first, or after $wait_seconds.
wait_until_up() {
  local label="$1" log_file="$2" pid="$3" i
  shift 3
  for (( i = 0; ; i++ )); do
    "$@" && return 0
    if [[ -n "$pid" ]] && ! is_running "$pid"; then
      show_log_tail "$log_file"
      die "$label exited while starting (log: $log_file)"
    fi
    if (( i >= wait_seconds * 4 )); then
      show_log_tail "$log_file"
      die "$label did not answer within ${wait_seconds}s (log: $log_file)"
    fi
    sleep 0.25
  done
}

mariadb_create_account() {
  mariadb_admin_sql "${1:-}" <<SQL
CREATE DATABASE IF NOT EXISTS \`$db_name\`;
CREATE USER IF NOT EXISTS '$db_user'@'127.0.0.1' IDENTIFIED BY '$db_password';
CREATE USER IF NOT EXISTS '$db_user'@'localhost' IDENTIFIED BY '$db_password';
ALTER USER '$db_user'@'127.0.0.1' IDENTIFIED BY '$db_password';
ALTER USER '$db_user'@'localhost' IDENTIFIED BY '$db_password';
GRANT ALL PRIVILEGES ON *.* TO '$db_user'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO '$db_user'@'localhost';
SQL
}

start_mariadb() {
  run_mariadbd MariaDB "$mariadb_dir" "$root/configs/mariadb.cnf" "$mariadb_port" ROWPUMP_MARIADB_PORT \
    "$mariadb_socket"
  mariadb_create_account || die "could not create the $db_name database and account"
}

replica_pid() { live_pid "$replica_pidfile" mariadbd || live_pid "$replica_pidfile" mysqld; }

# Makes the replica's datadir once: the primary's schema (no rows) and the position of its binary log then.
# A replica that is already set up keeps its data and goes on from where it stopped.
replica_init() {
  [[ -e "$replica_dir/replicating" ]] && return 0
  local position databases
  position="$(echo 'SELECT @@gtid_binlog_pos' | mariadb_admin_sql)"
  databases="$(echo "SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT IN
    ('mysql', 'information_schema', 'performance_schema', 'sys')" | mariadb_admin_sql)"
  if [[ -n "$databases" ]]; then
    # shellcheck disable=SC2086  # one word per database name
    "$(find_binary mariadb-dump mysqldump)" --no-defaults --socket="$mariadb_socket" --user="$admin_user" \
      --no-data --skip-triggers --databases $databases | mariadb_admin_sql "$replica_socket" ||
      die "could not copy the primary's schema to the replica"
  fi
  mariadb_create_account "$replica_socket" || die "could not create the $db_name account on the replica"
  mariadb_admin_sql "$replica_socket" <<SQL || die "could not point the replica at the primary"
STOP SLAVE;
SET GLOBAL gtid_slave_pos = '$position';
CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = $mariadb_port, MASTER_USER = '$db_user',
  MASTER_PASSWORD = '$db_password', MASTER_USE_GTID = slave_pos;
SQL
  touch "$replica_dir/replicating"
}

# The replica needs the primary's binary log; a primary started before configs/mariadb.cnf turned it on
# gets a warning, not a failure, so that the rest of the suite still runs.
start_replica() {
  if [[ "$(echo 'SELECT @@log_bin' | mariadb_admin_sql)" != 1 ]]; then
    log "the replica is not started: the MariaDB on port $mariadb_port has no binary log (it was started" \
      "before configs/mariadb.cnf turned log-bin on); restart it: scripts/services.sh stop, then start"
    return 0
  fi
  # A new datadir replicates from scratch.
  [[ -e "$replica_dir/initialized" ]] || rm -f -- "$replica_dir/replicating"
  run_mariadbd "the replica" "$replica_dir" "$root/configs/mariadb-replica.cnf" "$replica_port" \
    ROWPUMP_REPLICA_PORT "$replica_socket"
  replica_init
  # A test that died with the SQL thread stopped leaves it stopped: start both threads again.
  echo 'START SLAVE' | mariadb_admin_sql "$replica_socket" || die "could not start replication on the replica"
}

redis_pid() { live_pid "$redis_pidfile" redis-server; }

start_redis() {
  local pid
  mkdir -p "$redis_dir"
  if pid="$(redis_pid)"; then
    log "Redis already runs (pid $pid)"
  else
    port_in_use "$redis_port" &&
      die "port $redis_port on 127.0.0.1 is taken by another program; set ROWPUMP_REDIS_PORT"
    rm -f "$redis_pidfile"
    log "starting Redis on 127.0.0.1:$redis_port"
    if ! "$(find_binary redis-server)" "$root/configs/redis.conf" --port "$redis_port" \
        --dir "$redis_dir" --pidfile "$redis_pidfile" --logfile "$redis_log" \
        </dev/null >"$redis_dir/start.log" 2>&1; then
      show_log_tail "$redis_dir/start.log"
      die "redis-server failed to start"
    fi
  fi
  # redis-server forks into the background: no pid to watch until its pid file is written.
  wait_until_up Redis "$redis_log" "" redis_ping
}

redis_ping() { [[ "$("$(find_binary redis-cli)" -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" == PONG ]]; }

# SIGTERM is a clean shutdown for both servers, and it reaches only the process we started.
stop_server() {
  local label="$1" pid_of="$2" log_file="$3" pid
  if ! pid="$("$pid_of")"; then
    log "$label is not running"
    return 0
  fi
  log "stopping $label (pid $pid)"
  kill -TERM "$pid"
  if ! wait_for_exit "$pid"; then
    show_log_tail "$log_file"
    die "$label (pid $pid) did not stop within ${wait_seconds}s"
  fi
}

# --- A MariaDB that requires TLS (require_secure_transport=ON), for the TLS tests ---------------------
# Its own port, datadir and certificates under $state_dir/mariadb-tls. openssl makes a private CA and a
# server certificate for CN 127.0.0.1 with the SANs IP:127.0.0.1 and DNS:localhost, so ssl-mode=VERIFY_IDENTITY
# can pass for either name. Its global time zone is +05:00, so a test can see rowpump's sessions ignore
# the server's zone. The admin logs in through its unix socket, which counts as secure transport.
tls_port="${ROWPUMP_TLS_MARIADB_PORT:-3417}"
if [[ ! "$tls_port" =~ ^[1-9][0-9]{0,4}$ ]] || (( tls_port > 65535 )) || [[ "$tls_port" == "$mariadb_port" ]] ||
   [[ "$tls_port" == "$redis_port" ]]; then
  log "bad port for the TLS MariaDB: $tls_port (1-65535, not the other servers' ports)"
  exit 2
fi
tls_dir="$state_dir/mariadb-tls"
tls_data="$tls_dir/data"
tls_certs="$tls_dir/certs"
tls_pidfile="$tls_dir/mariadbd.pid"
tls_log="$tls_dir/error.log"
tls_socket="$(socket_path "$tls_dir" tls)"

tls_mariadb_pid() { live_pid "$tls_pidfile" mariadbd || live_pid "$tls_pidfile" mysqld; }

tls_make_certificates() {
  make_test_certificates "$tls_certs" server-cert.pem "making a test CA and server certificate in $tls_certs" \
    "rowpump test CA" 127.0.0.1 "IP:127.0.0.1,DNS:localhost"
}

start_tls_mariadb() {
  mkdir -p "$tls_dir"
  tls_make_certificates
  run_mariadbd "the TLS MariaDB" "$tls_dir" "$root/configs/mariadb.cnf" "$tls_port" ROWPUMP_TLS_MARIADB_PORT \
    "$tls_socket" --innodb-buffer-pool-size=128M --max-connections=100 --default-time-zone=+05:00 \
    --ssl-ca="$tls_certs/ca.pem" --ssl-cert="$tls_certs/server-cert.pem" --ssl-key="$tls_certs/server-key.pem" \
    --require-secure-transport=ON
  mariadb_create_account "$tls_socket" || die "could not create the account on the TLS MariaDB"
}

tls_mariadb_status() {
  local pid
  if pid="$(tls_mariadb_pid)"; then
    echo "mariadb-tls: running, pid $pid, 127.0.0.1:$tls_port, data $tls_data, CA $tls_certs/ca.pem"
  else
    echo "mariadb-tls: stopped"
    return 1
  fi
}

# The URLs carry no password: a URL given to rowpump on a command line would put it where every local user
# can read it (ps). rowpump, the tests and the benchmarks take it from ROWPUMP_MYSQL_PASSWORD instead.
print_tls_env() {
  echo "export ROWPUMP_MYSQL_PASSWORD=$db_password"
  echo "export ROWPUMP_TLS_MYSQL_URL=mysql://$db_user@127.0.0.1:$tls_port/$db_name"
  echo "export ROWPUMP_TLS_CA=$tls_certs/ca.pem"
}

print_env() {
  echo "export ROWPUMP_MYSQL_URL=mysql://$db_user@127.0.0.1:$mariadb_port/$db_name"
  echo "export ROWPUMP_REDIS_URL=redis://127.0.0.1:$redis_port/0"
  print_tls_env
  print_redis_tls_env
  print_redis_sentinel_env
  # Only a replica that runs: the replica tests then say how to start one instead of failing to connect.
  if replica_pid >/dev/null; then
    echo "export ROWPUMP_REPLICA_URL=mysql://$db_user@127.0.0.1:$replica_port/$db_name"
  fi
  print_redis_cluster_env
  print_redis_tls_cluster_env
}

status() {
  local pid running=0
  if pid="$(mariadb_pid)"; then
    echo "mariadb: running, pid $pid, 127.0.0.1:$mariadb_port, data $mariadb_data"
    running=$((running + 1))
  else
    echo "mariadb: stopped"
  fi
  if pid="$(replica_pid)"; then
    echo "mariadb replica: running, pid $pid, 127.0.0.1:$replica_port, data $replica_data"
  else
    echo "mariadb replica: stopped"
  fi
  if pid="$(redis_pid)"; then
    echo "redis: running, pid $pid, 127.0.0.1:$redis_port, dir $redis_dir"
    running=$((running + 1))
  else
    echo "redis: stopped"
  fi
  tls_mariadb_status || running=$((running - 1))
  redis_cluster_status || running=$((running - 1))
  redis_tls_status || running=$((running - 1))
  redis_sentinel_status || running=$((running - 1))
  redis_tls_cluster_status || running=$((running - 1))
  (( running == 2 )) || return 3
}

# The test certificates; the TLS Redis, the Sentinel setup and the Redis Cluster, each in a file of its own.
# shellcheck source=services/test_certificates.sh
source "$root/scripts/services/test_certificates.sh"
# shellcheck source=services/redis_tls.sh
source "$root/scripts/services/redis_tls.sh"
# shellcheck source=services/redis_sentinel.sh
source "$root/scripts/services/redis_sentinel.sh"
# shellcheck source=services/redis_cluster_nodes.sh
source "$root/scripts/services/redis_cluster_nodes.sh"
# shellcheck source=services/redis_cluster.sh
source "$root/scripts/services/redis_cluster.sh"
# shellcheck source=services/redis_tls_cluster.sh
source "$root/scripts/services/redis_tls_cluster.sh"

# A server keeps every descriptor it inherits for as long as it runs. Started under `flock LOCK`, or from a
# test that reads our output until EOF, it would hold that lock or pipe forever: close all above stderr.
close_inherited_fds() {
  local fd
  for fd in /proc/$$/fd/*; do
    fd="${fd##*/}"
    if (( fd > 2 )); then exec {fd}>&- 2>/dev/null || true; fi
  done
}

case "${1:-}" in
  start)
    close_inherited_fds
    start_mariadb
    start_replica
    start_redis
    start_tls_mariadb
    start_redis_cluster
    start_redis_tls
    start_redis_sentinel
    start_redis_tls_cluster
    print_env
    ;;
  stop)
    stop_server "the MariaDB replica" replica_pid "$replica_log"
    stop_server MariaDB mariadb_pid "$mariadb_log"
    stop_server Redis redis_pid "$redis_log"
    stop_server "the TLS MariaDB" tls_mariadb_pid "$tls_log"
    stop_redis_cluster
    stop_redis_tls
    stop_redis_sentinel
    stop_redis_tls_cluster
    ;;
  start-redis-cluster) close_inherited_fds; start_redis_cluster; print_redis_cluster_env ;;
  stop-redis-cluster) stop_redis_cluster ;;
  start-redis-tls-cluster) close_inherited_fds; start_redis_tls_cluster; print_redis_tls_cluster_env ;;
  stop-redis-tls-cluster) stop_redis_tls_cluster ;;
  start-redis-extras) close_inherited_fds; start_redis_tls; start_redis_sentinel; print_redis_tls_env
    print_redis_sentinel_env ;;
  stop-redis-extras) stop_redis_tls; stop_redis_sentinel ;;
  start-tls) close_inherited_fds; start_tls_mariadb ;;
  status) status ;;
  env) print_env ;;
  *)
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac

# shellcheck shell=bash
# Sourced by scripts/services.sh: a Redis Sentinel setup for the redis-sentinel:// and --redis-wait tests.
# One master (6490), one replica of it (6491) and three sentinels (26490-26492, `redis-server --sentinel`)
# that watch them as master "rowpump" with a quorum of 2 and down-after-milliseconds 1000, so a failover
# takes a few seconds. Every file is under $state_dir/redis-sentinel. The servers keep no data on disk.
# The sentinels rewrite their own and the servers' config files: after a failover the replica is the
# master, and a restarted old master is made its replica, so `start` simply starts whatever is not running.
#
# Environment: ROWPUMP_SENTINEL_MASTER_PORT (6490), ROWPUMP_SENTINEL_REPLICA_PORT (6491),
# ROWPUMP_SENTINEL_PORT (26490; the sentinels take it and the next two).
sentinel_master_port="${ROWPUMP_SENTINEL_MASTER_PORT:-6490}"
sentinel_replica_port="${ROWPUMP_SENTINEL_REPLICA_PORT:-6491}"
sentinel_first_port="${ROWPUMP_SENTINEL_PORT:-26490}"
sentinel_dir="$state_dir/redis-sentinel"
sentinel_master_name=rowpump

# The data servers and the sentinels, as NAME:PORT; each has NAME.conf, NAME.pid and NAME.log.
sentinel_members() {
  echo "server-$sentinel_master_port:$sentinel_master_port server-$sentinel_replica_port:$sentinel_replica_port"
  local i
  for i in 0 1 2; do echo "sentinel-$((sentinel_first_port + i)):$((sentinel_first_port + i))"; done
}

# The lines every member's config starts with: where it listens, and its files.
sentinel_member_config() {
  local name="$1" port="$2"
  echo "bind 127.0.0.1"
  echo "port $port"
  echo "daemonize yes"
  echo "pidfile $sentinel_dir/$name.pid"
  echo "logfile $sentinel_dir/$name.log"
  echo "dir $sentinel_dir"
}

sentinel_write_configs() {
  [[ -e "$sentinel_dir/configured" ]] && return 0
  mkdir -p "$sentinel_dir"
  local port name
  for port in "$sentinel_master_port" "$sentinel_replica_port"; do
    name="server-$port"
    {
      sentinel_member_config "$name" "$port"
      echo "dbfilename $name.rdb"
      echo 'save ""'
      echo "appendonly no"
      [[ "$port" == "$sentinel_replica_port" ]] && echo "replicaof 127.0.0.1 $sentinel_master_port"
    } >"$sentinel_dir/$name.conf"
  done
  local i
  for i in 0 1 2; do
    port=$((sentinel_first_port + i))
    name="sentinel-$port"
    {
      sentinel_member_config "$name" "$port"
      echo "sentinel monitor $sentinel_master_name 127.0.0.1 $sentinel_master_port 2"
      echo "sentinel down-after-milliseconds $sentinel_master_name 1000"
      echo "sentinel failover-timeout $sentinel_master_name 4000"
      echo "sentinel parallel-syncs $sentinel_master_name 1"
    } >"$sentinel_dir/$name.conf"
  done
  touch "$sentinel_dir/configured"
}

sentinel_member_pid() { live_pid "$sentinel_dir/$1.pid" redis-server || live_pid "$sentinel_dir/$1.pid" redis-sentinel; }

sentinel_ping() { [[ "$("$(find_binary redis-cli)" -h 127.0.0.1 -p "$1" ping 2>/dev/null)" == PONG ]]; }

start_redis_sentinel() {
  sentinel_write_configs
  local member name port pid args
  for member in $(sentinel_members); do
    name="${member%%:*}"
    port="${member##*:}"
    if pid="$(sentinel_member_pid "$name")"; then
      log "$name already runs (pid $pid)"
    else
      port_in_use "$port" && die "port $port on 127.0.0.1 is taken by another program (Sentinel setup)"
      rm -f "$sentinel_dir/$name.pid"
      args=("$sentinel_dir/$name.conf")
      [[ "$name" == sentinel-* ]] && args+=(--sentinel)
      log "starting $name on 127.0.0.1:$port"
      "$(find_binary redis-server)" "${args[@]}" </dev/null >"$sentinel_dir/$name.start.log" 2>&1 ||
        { show_log_tail "$sentinel_dir/$name.start.log"; die "$name failed to start"; }
    fi
    wait_until_up "$name" "$sentinel_dir/$name.log" "" sentinel_ping "$port"
  done
}

stop_sentinel_member() {
  local name="$1" pid
  pid="$(sentinel_member_pid "$name")" || { log "$name is not running"; return 0; }
  log "stopping $name (pid $pid)"
  kill -TERM "$pid"
  wait_for_exit "$pid" || die "$name (pid $pid) did not stop within ${wait_seconds}s"
}

# The sentinels first: a master that stops under their eyes would start a failover.
stop_redis_sentinel() {
  local member
  for member in $(sentinel_members | tac); do stop_sentinel_member "${member%%:*}"; done
}

redis_sentinel_status() {
  local member name running=0 total=0
  for member in $(sentinel_members); do
    name="${member%%:*}"
    total=$((total + 1))
    sentinel_member_pid "$name" >/dev/null && running=$((running + 1))
  done
  if (( running == total )); then
    echo "redis-sentinel: running, master '$sentinel_master_name' on 127.0.0.1:$sentinel_master_port or" \
      "$sentinel_replica_port, sentinels 127.0.0.1:$sentinel_first_port-$((sentinel_first_port + 2)), dir $sentinel_dir"
  else
    echo "redis-sentinel: $running of $total processes running"
    return 1
  fi
}

# Only a setup that runs, as above.
print_redis_sentinel_env() {
  redis_sentinel_status >/dev/null || return 0
  echo "export ROWPUMP_REDIS_SENTINEL_URL=redis-sentinel://127.0.0.1:$sentinel_first_port,127.0.0.1:$((sentinel_first_port + 1)),127.0.0.1:$((sentinel_first_port + 2))/$sentinel_master_name/0"
}

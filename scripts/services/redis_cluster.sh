# shellcheck shell=bash
# A Redis Cluster for the cluster tests: three masters and three replicas on 127.0.0.1, ports
# $ROWPUMP_REDIS_CLUSTER_PORT (6501) to that plus 5, every file under $state_dir/redis-cluster/<port>/.
# Sourced by scripts/services.sh, which gives it $state_dir, $wait_seconds and its helpers (find_binary,
# live_pid, port_in_use, wait_until_up, stop_server, log, die).
#
# Each node keeps its cluster configuration (nodes.conf) in its folder, so a restart finds the same
# cluster; the join (redis-cli --cluster create) runs only while the nodes know no one else. The nodes keep
# no data on disk (save "", appendonly no), like the single Redis: the tests write what they read.
# cluster-node-timeout is 2 s so that a replica takes over a dead master within seconds.

redis_cluster_port="${ROWPUMP_REDIS_CLUSTER_PORT:-6501}"
if [[ ! "$redis_cluster_port" =~ ^[1-9][0-9]{0,4}$ ]] || (( redis_cluster_port + 5 > 65535 )); then
  log "bad first port for the Redis Cluster: $redis_cluster_port (1-65530)"
  exit 2
fi
redis_cluster_dir="$state_dir/redis-cluster"
redis_cluster_ports=()
for (( i = 0; i < 6; i++ )); do redis_cluster_ports+=($((redis_cluster_port + i))); done

redis_cluster_node_pid() { live_pid "$redis_cluster_dir/$1/redis-server.pid" redis-server; }

redis_cluster_cli() { "$(find_binary redis-cli)" -h 127.0.0.1 "$@"; }

# True when the node on port $1 answers and sees a whole cluster: all 16384 slots served, six nodes.
redis_cluster_node_ok() {
  local info
  info="$(redis_cluster_cli -p "$1" cluster info 2>/dev/null)" || return 1
  [[ "$info" == *"cluster_state:ok"* && "$info" == *"cluster_known_nodes:6"* ]]
}

redis_cluster_all_ok() {
  local port
  for port in "${redis_cluster_ports[@]}"; do redis_cluster_node_ok "$port" || return 1; done
}

redis_cluster_node_up() { [[ "$(redis_cluster_cli -p "$1" ping 2>/dev/null)" == PONG ]]; }

start_redis_cluster_node() {
  local port="$1" dir="$redis_cluster_dir/$1" pid
  mkdir -p "$dir"
  if pid="$(redis_cluster_node_pid "$port")"; then
    log "Redis Cluster node $port already running (pid $pid)"
    return 0
  fi
  port_in_use "$port" && die "port $port on 127.0.0.1 is taken by another program; set ROWPUMP_REDIS_CLUSTER_PORT"
  rm -f "$dir/redis-server.pid"
  log "starting Redis Cluster node on 127.0.0.1:$port"
  if ! "$(find_binary redis-server)" --bind 127.0.0.1 --port "$port" --daemonize yes --save "" --appendonly no \
      --cluster-enabled yes --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 2000 \
      --dir "$dir" --pidfile "$dir/redis-server.pid" --logfile "$dir/redis-server.log" \
      </dev/null >"$dir/start.log" 2>&1; then
    show_log_tail "$dir/start.log"
    die "redis-server failed to start on port $port"
  fi
  wait_until_up "Redis Cluster node $port" "$dir/redis-server.log" "" redis_cluster_node_up "$port"
}

start_redis_cluster() {
  local port nodes=()
  for port in "${redis_cluster_ports[@]}"; do
    start_redis_cluster_node "$port"
    nodes+=("127.0.0.1:$port")
  done
  # A first start: the nodes know only themselves. Join them (masters first, a replica for each).
  if [[ "$(redis_cluster_cli -p "$redis_cluster_port" cluster info)" == *"cluster_known_nodes:1"* ]]; then
    log "joining the Redis Cluster: ${nodes[*]}"
    redis_cluster_cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes \
      >"$redis_cluster_dir/create.log" 2>&1 ||
      { show_log_tail "$redis_cluster_dir/create.log"; die "redis-cli --cluster create failed"; }
  fi
  wait_until_up "the Redis Cluster" "$redis_cluster_dir/create.log" "" redis_cluster_all_ok
}

# stop_server takes the name of a function without arguments: this one reads the port being stopped.
redis_cluster_stopping=""
redis_cluster_stopping_pid() { redis_cluster_node_pid "$redis_cluster_stopping"; }

stop_redis_cluster() {
  for redis_cluster_stopping in "${redis_cluster_ports[@]}"; do
    stop_server "Redis Cluster node $redis_cluster_stopping" redis_cluster_stopping_pid \
      "$redis_cluster_dir/$redis_cluster_stopping/redis-server.log"
  done
}

# Counts as running when every node runs and the cluster is whole.
redis_cluster_status() {
  local port pid running=0
  for port in "${redis_cluster_ports[@]}"; do
    pid="$(redis_cluster_node_pid "$port")" && running=$((running + 1))
  done
  if (( running == 6 )) && redis_cluster_all_ok; then
    echo "redis-cluster: running, 6 nodes on 127.0.0.1:${redis_cluster_ports[0]}-${redis_cluster_ports[5]}, dir $redis_cluster_dir"
  else
    echo "redis-cluster: $running of 6 nodes running"
    return 1
  fi
}

# Only a cluster that runs: the cluster tests then say how to start one instead of failing to connect.
print_redis_cluster_env() {
  redis_cluster_all_ok 2>/dev/null || return 0
  echo "export ROWPUMP_REDIS_CLUSTER_URL=redis-cluster://127.0.0.1:${redis_cluster_ports[0]},127.0.0.1:${redis_cluster_ports[1]},127.0.0.1:${redis_cluster_ports[2]}/"
}

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
cluster_define redis_cluster "Redis Cluster" "$redis_cluster_port" 6 1 ROWPUMP_REDIS_CLUSTER_PORT
redis_cluster_server_args=(--port)

redis_cluster_cli() { "$(find_binary redis-cli)" -h 127.0.0.1 "$@"; }

redis_cluster_all_ok() { cluster_all_ok redis_cluster; }
start_redis_cluster() { cluster_start redis_cluster; }
stop_redis_cluster() { cluster_stop redis_cluster; }

# Counts as running when every node runs and the cluster is whole.
redis_cluster_status() {
  local running
  running="$(cluster_running_nodes redis_cluster)"
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

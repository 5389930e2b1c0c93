# shellcheck shell=bash
# What the two test clusters share (redis_cluster.sh, redis_tls_cluster.sh): starting a node, joining the
# nodes, stopping them, and checking that every node sees the whole cluster. A cluster is named by its
# prefix P, and defines ${P}_label, ${P}_dir, ${P}_ports (an array), ${P}_replicas (per master),
# ${P}_port_variable (the variable that moves its ports), ${P}_server_args (an array: the flags its nodes
# add to the common ones, ending in the flag that the node's port follows) and the function ${P}_cli
# (redis-cli with its connection flags).
# Sourced by scripts/services.sh after its helpers (find_binary, live_pid, port_in_use, wait_until_up,
# stop_server, show_log_tail, log, die).

# Sets a cluster's ${P}_ports, ${P}_label, ${P}_replicas and ${P}_port_variable: prefix P, label, first port,
# number of nodes, replicas per master, the variable that moves its ports.
cluster_define() {
  local prefix="$1" first_port="$3" nodes="$4" i
  local -n defined_ports="${prefix}_ports"
  defined_ports=()
  for (( i = 0; i < nodes; i++ )); do defined_ports+=($((first_port + i))); done
  printf -v "${prefix}_label" '%s' "$2"
  printf -v "${prefix}_replicas" '%s' "$5"
  printf -v "${prefix}_port_variable" '%s' "$6"
}

cluster_node_pid() { live_pid "$1/redis-server.pid" redis-server; }  # $1: the node's folder

cluster_node_up() { [[ "$("${1}_cli" -p "$2" ping 2>/dev/null)" == PONG ]]; }  # prefix, port

# True when every node answers and sees a whole cluster: all slots served, every node known.
cluster_all_ok() {
  local -n all_ok_ports="${1}_ports"
  local port info
  for port in "${all_ok_ports[@]}"; do
    info="$("${1}_cli" -p "$port" cluster info 2>/dev/null)" || return 1
    [[ "$info" == *"cluster_state:ok"* && "$info" == *"cluster_known_nodes:${#all_ok_ports[@]}"* ]] || return 1
  done
}

# The number of nodes whose process runs.
cluster_running_nodes() {
  local -n running_ports="${1}_ports" running_dir="${1}_dir"
  local port running=0
  for port in "${running_ports[@]}"; do
    cluster_node_pid "$running_dir/$port" >/dev/null && running=$((running + 1))
  done
  echo "$running"
}

cluster_start_node() {
  local prefix="$1" port="$2"
  local -n node_label="${prefix}_label" node_args="${prefix}_server_args" node_port_variable="${prefix}_port_variable"
  local -n node_root="${prefix}_dir"
  local dir="$node_root/$port" pid
  mkdir -p "$dir"
  if pid="$(cluster_node_pid "$dir")"; then
    log "$node_label node $port already running (pid $pid)"
    return 0
  fi
  port_in_use "$port" && die "port $port on 127.0.0.1 is taken by another program; set $node_port_variable"
  rm -f "$dir/redis-server.pid"
  log "starting $node_label node on 127.0.0.1:$port"
  if ! "$(find_binary redis-server)" --bind 127.0.0.1 "${node_args[@]}" "$port" --daemonize yes --save "" --appendonly no \
      --cluster-enabled yes --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 2000 \
      --dir "$dir" --pidfile "$dir/redis-server.pid" --logfile "$dir/redis-server.log" \
      </dev/null >"$dir/start.log" 2>&1; then
    show_log_tail "$dir/start.log"
    die "redis-server for the $node_label failed to start on port $port"
  fi
  wait_until_up "$node_label node $port" "$dir/redis-server.log" "" cluster_node_up "$prefix" "$port"
}

# Starts every node; on a first start (the nodes know only themselves) joins them, masters first.
cluster_start() {
  local prefix="$1"
  local -n start_label="${prefix}_label" start_ports="${prefix}_ports" start_dir="${prefix}_dir"
  local -n start_replicas="${prefix}_replicas"
  local port nodes=()
  mkdir -p "$start_dir"
  for port in "${start_ports[@]}"; do
    cluster_start_node "$prefix" "$port"
    nodes+=("127.0.0.1:$port")
  done
  if [[ "$("${prefix}_cli" -p "${start_ports[0]}" cluster info)" == *"cluster_known_nodes:1"* ]]; then
    log "joining the $start_label: ${nodes[*]}"
    "${prefix}_cli" --cluster create "${nodes[@]}" --cluster-replicas "$start_replicas" --cluster-yes \
      >"$start_dir/create.log" 2>&1 ||
      { show_log_tail "$start_dir/create.log"; die "redis-cli --cluster create failed for the $start_label"; }
  fi
  wait_until_up "the $start_label" "$start_dir/create.log" "" cluster_all_ok "$prefix"
}

# stop_server takes the name of a function without arguments: this one reads the node being stopped.
cluster_stopping_dir=""
cluster_stopping_pid() { cluster_node_pid "$cluster_stopping_dir"; }

cluster_stop() {
  local -n stop_label="${1}_label" stop_ports="${1}_ports" stop_dir="${1}_dir"
  local port
  for port in "${stop_ports[@]}"; do
    cluster_stopping_dir="$stop_dir/$port"
    stop_server "$stop_label node $port" cluster_stopping_pid "$cluster_stopping_dir/redis-server.log"
  done
}

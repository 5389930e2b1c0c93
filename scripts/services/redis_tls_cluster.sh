# shellcheck shell=bash
# A Redis Cluster that takes TLS only, for the rediss-cluster:// tests: three masters, no replicas (to keep
# the suite's time down), on 127.0.0.1 ports $ROWPUMP_REDIS_TLS_CLUSTER_PORT (6511) to that plus 2, with
# --port 0 and --tls-port, and --tls-cluster yes (the cluster bus speaks TLS too). Every file is under
# $state_dir/redis-tls-cluster/: openssl makes its CA and a server certificate for DNS:localhost and
# IP:127.0.0.1 (the slot map names the nodes by address, so VERIFY_IDENTITY checks the IP), and a client
# certificate, which the nodes also show each other on the bus (the server's is for serverAuth only).
# Sourced by scripts/services.sh, which gives it $state_dir and its helpers.

redis_tls_cluster_port="${ROWPUMP_REDIS_TLS_CLUSTER_PORT:-6511}"
if [[ ! "$redis_tls_cluster_port" =~ ^[1-9][0-9]{0,4}$ ]] || (( redis_tls_cluster_port + 2 > 55535 )); then
  log "bad first port for the TLS Redis Cluster: $redis_tls_cluster_port (1-55533: its bus ports are 10000 above)"
  exit 2
fi
redis_tls_cluster_dir="$state_dir/redis-tls-cluster"
redis_tls_cluster_certs="$redis_tls_cluster_dir/certs"
redis_tls_cluster_ports=()
for (( i = 0; i < 3; i++ )); do redis_tls_cluster_ports+=($((redis_tls_cluster_port + i))); done

redis_tls_cluster_node_pid() { live_pid "$redis_tls_cluster_dir/$1/redis-server.pid" redis-server; }

redis_tls_cluster_cli() {
  "$(find_binary redis-cli)" -h 127.0.0.1 --tls --cacert "$redis_tls_cluster_certs/ca.pem" "$@"
}

redis_tls_cluster_make_certificates() {
  make_test_certificates "$redis_tls_cluster_certs" client-cert.pem \
    "making a test CA, server and client certificates in $redis_tls_cluster_certs" \
    "rowpump Redis Cluster test CA" localhost "DNS:localhost,IP:127.0.0.1" redis_tls_client_certificate
}

redis_tls_cluster_node_up() { [[ "$(redis_tls_cluster_cli -p "$1" ping 2>/dev/null)" == PONG ]]; }

redis_tls_cluster_all_ok() {
  local port info
  for port in "${redis_tls_cluster_ports[@]}"; do
    info="$(redis_tls_cluster_cli -p "$port" cluster info 2>/dev/null)" || return 1
    [[ "$info" == *"cluster_state:ok"* && "$info" == *"cluster_known_nodes:3"* ]] || return 1
  done
}

start_redis_tls_cluster_node() {
  local port="$1" dir="$redis_tls_cluster_dir/$1" pid
  mkdir -p "$dir"
  if pid="$(redis_tls_cluster_node_pid "$port")"; then
    log "TLS Redis Cluster node $port already running (pid $pid)"
    return 0
  fi
  port_in_use "$port" && die "port $port on 127.0.0.1 is taken by another program; set ROWPUMP_REDIS_TLS_CLUSTER_PORT"
  rm -f "$dir/redis-server.pid"
  log "starting TLS Redis Cluster node on 127.0.0.1:$port"
  if ! "$(find_binary redis-server)" --bind 127.0.0.1 --port 0 --tls-port "$port" --daemonize yes --save "" \
      --appendonly no --tls-cluster yes --tls-replication yes \
      --tls-cert-file "$redis_tls_cluster_certs/server-cert.pem" \
      --tls-key-file "$redis_tls_cluster_certs/server-key.pem" \
      --tls-ca-cert-file "$redis_tls_cluster_certs/ca.pem" --tls-auth-clients optional \
      --tls-client-cert-file "$redis_tls_cluster_certs/client-cert.pem" \
      --tls-client-key-file "$redis_tls_cluster_certs/client-key.pem" \
      --cluster-enabled yes --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 2000 \
      --dir "$dir" --pidfile "$dir/redis-server.pid" --logfile "$dir/redis-server.log" \
      </dev/null >"$dir/start.log" 2>&1; then
    show_log_tail "$dir/start.log"
    die "the TLS redis-server failed to start on port $port"
  fi
  wait_until_up "TLS Redis Cluster node $port" "$dir/redis-server.log" "" redis_tls_cluster_node_up "$port"
}

start_redis_tls_cluster() {
  local port nodes=()
  mkdir -p "$redis_tls_cluster_dir"
  redis_tls_cluster_make_certificates
  for port in "${redis_tls_cluster_ports[@]}"; do
    start_redis_tls_cluster_node "$port"
    nodes+=("127.0.0.1:$port")
  done
  if [[ "$(redis_tls_cluster_cli -p "$redis_tls_cluster_port" cluster info)" == *"cluster_known_nodes:1"* ]]; then
    log "joining the TLS Redis Cluster: ${nodes[*]}"
    redis_tls_cluster_cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes \
      >"$redis_tls_cluster_dir/create.log" 2>&1 ||
      { show_log_tail "$redis_tls_cluster_dir/create.log"; die "redis-cli --cluster create (TLS) failed"; }
  fi
  wait_until_up "the TLS Redis Cluster" "$redis_tls_cluster_dir/create.log" "" redis_tls_cluster_all_ok
}

redis_tls_cluster_stopping=""
redis_tls_cluster_stopping_pid() { redis_tls_cluster_node_pid "$redis_tls_cluster_stopping"; }

stop_redis_tls_cluster() {
  for redis_tls_cluster_stopping in "${redis_tls_cluster_ports[@]}"; do
    stop_server "TLS Redis Cluster node $redis_tls_cluster_stopping" redis_tls_cluster_stopping_pid \
      "$redis_tls_cluster_dir/$redis_tls_cluster_stopping/redis-server.log"
  done
}

redis_tls_cluster_status() {
  local port running=0
  for port in "${redis_tls_cluster_ports[@]}"; do
    redis_tls_cluster_node_pid "$port" >/dev/null && running=$((running + 1))
  done
  if (( running == 3 )) && redis_tls_cluster_all_ok; then
    echo "redis-tls-cluster: running, 3 masters on 127.0.0.1:${redis_tls_cluster_ports[0]}-${redis_tls_cluster_ports[2]}" \
      "(TLS only), CA $redis_tls_cluster_certs/ca.pem"
  else
    echo "redis-tls-cluster: $running of 3 nodes running"
    return 1
  fi
}

# Only a cluster that runs: the TLS cluster tests then say how to start one instead of failing to connect.
print_redis_tls_cluster_env() {
  redis_tls_cluster_all_ok 2>/dev/null || return 0
  echo "export ROWPUMP_REDIS_TLS_CLUSTER_URL=rediss-cluster://127.0.0.1:${redis_tls_cluster_ports[0]},127.0.0.1:${redis_tls_cluster_ports[1]}/"
  echo "export ROWPUMP_REDIS_TLS_CLUSTER_CERTS=$redis_tls_cluster_certs"
}

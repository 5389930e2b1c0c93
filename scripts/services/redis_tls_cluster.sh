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
cluster_define redis_tls_cluster "TLS Redis Cluster" "$redis_tls_cluster_port" 3 0 ROWPUMP_REDIS_TLS_CLUSTER_PORT
redis_tls_cluster_server_args=(
  --port 0 --tls-cluster yes --tls-replication yes
  --tls-cert-file "$redis_tls_cluster_certs/server-cert.pem" --tls-key-file "$redis_tls_cluster_certs/server-key.pem"
  --tls-ca-cert-file "$redis_tls_cluster_certs/ca.pem" --tls-auth-clients optional
  --tls-client-cert-file "$redis_tls_cluster_certs/client-cert.pem"
  --tls-client-key-file "$redis_tls_cluster_certs/client-key.pem"
  --tls-port
)

redis_tls_cluster_cli() {
  "$(find_binary redis-cli)" -h 127.0.0.1 --tls --cacert "$redis_tls_cluster_certs/ca.pem" "$@"
}

redis_tls_cluster_make_certificates() {
  make_test_certificates "$redis_tls_cluster_certs" client-cert.pem \
    "making a test CA, server and client certificates in $redis_tls_cluster_certs" \
    "rowpump Redis Cluster test CA" localhost "DNS:localhost,IP:127.0.0.1" redis_tls_client_certificate
}

redis_tls_cluster_all_ok() { cluster_all_ok redis_tls_cluster; }

start_redis_tls_cluster() {
  mkdir -p "$redis_tls_cluster_dir"
  redis_tls_cluster_make_certificates
  cluster_start redis_tls_cluster
}

stop_redis_tls_cluster() { cluster_stop redis_tls_cluster; }

redis_tls_cluster_status() {
  local running
  running="$(cluster_running_nodes redis_tls_cluster)"
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

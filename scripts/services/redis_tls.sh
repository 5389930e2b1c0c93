# shellcheck shell=bash
# Sourced by scripts/services.sh: a Redis that takes TLS only (port 0, --tls-port), for the rediss:// tests.
# Its files are under $state_dir/redis-tls: openssl makes a private CA, a server certificate that names
# DNS:localhost only (so rediss://localhost verifies and rediss://127.0.0.1 is a name mismatch), and a
# client certificate from the same CA. tls-auth-clients is optional: a client without a certificate is
# served, one whose certificate the CA did not sign is refused. It also listens on a unix socket, where
# Redis speaks plain RESP, for the redis+unix:// tests (a deep checkout's socket goes to the temp folder).
#
# Environment: ROWPUMP_REDIS_TLS_PORT (6480).
redis_tls_port="${ROWPUMP_REDIS_TLS_PORT:-6480}"
redis_tls_dir="$state_dir/redis-tls"
redis_tls_certs="$redis_tls_dir/certs"
redis_tls_pidfile="$redis_tls_dir/redis-server.pid"
redis_tls_log="$redis_tls_dir/redis-server.log"
redis_tls_socket="$redis_tls_dir/redis.sock"
(( ${#redis_tls_socket} <= 100 )) ||
  redis_tls_socket="${TMPDIR:-/tmp}/rowpump-redis-$(printf '%s' "$redis_tls_dir" | cksum | cut -d' ' -f1).sock"

redis_tls_pid() { live_pid "$redis_tls_pidfile" redis-server; }

# The client certificate, from the same CA (make_test_certificates' EXTRA, in the certificates' folder).
redis_tls_client_certificate() {
  local openssl="$1"
  "$openssl" req -newkey rsa:2048 -nodes -subj "/CN=rowpump test client" -keyout client-key.pem -out client.csr
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=clientAuth" >client.ext
  "$openssl" x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
    -extfile client.ext -out client-cert.pem
}

redis_tls_make_certificates() {
  make_test_certificates "$redis_tls_certs" client-cert.pem \
    "making a test CA, server and client certificates in $redis_tls_certs" \
    "rowpump Redis test CA" localhost "DNS:localhost" redis_tls_client_certificate
}

redis_tls_ping() {
  [[ "$("$(find_binary redis-cli)" -h localhost -p "$redis_tls_port" --tls --cacert "$redis_tls_certs/ca.pem" \
    ping 2>/dev/null)" == PONG ]]
}

start_redis_tls() {
  local pid
  mkdir -p "$redis_tls_dir"
  redis_tls_make_certificates
  if pid="$(redis_tls_pid)"; then
    log "the TLS Redis already runs (pid $pid)"
  else
    port_in_use "$redis_tls_port" &&
      die "port $redis_tls_port on 127.0.0.1 is taken by another program; set ROWPUMP_REDIS_TLS_PORT"
    rm -f "$redis_tls_pidfile"
    log "starting the TLS Redis on 127.0.0.1:$redis_tls_port"
    if ! "$(find_binary redis-server)" "$root/configs/redis.conf" --port 0 --tls-port "$redis_tls_port" \
        --tls-cert-file "$redis_tls_certs/server-cert.pem" --tls-key-file "$redis_tls_certs/server-key.pem" \
        --tls-ca-cert-file "$redis_tls_certs/ca.pem" --tls-auth-clients optional \
        --unixsocket "$redis_tls_socket" --unixsocketperm 700 \
        --dir "$redis_tls_dir" --pidfile "$redis_tls_pidfile" --logfile "$redis_tls_log" \
        </dev/null >"$redis_tls_dir/start.log" 2>&1; then
      show_log_tail "$redis_tls_dir/start.log"
      die "the TLS redis-server failed to start (is redis-server built with TLS?)"
    fi
  fi
  wait_until_up "the TLS Redis" "$redis_tls_log" "" redis_tls_ping
}

stop_redis_tls() { stop_server "the TLS Redis" redis_tls_pid "$redis_tls_log"; }

redis_tls_status() {
  local pid
  if pid="$(redis_tls_pid)"; then
    echo "redis-tls: running, pid $pid, 127.0.0.1:$redis_tls_port (TLS only) and $redis_tls_socket," \
      "CA $redis_tls_certs/ca.pem"
  else
    echo "redis-tls: stopped"
    return 1
  fi
}

# The certificate names localhost only: the URL says localhost. Only a TLS Redis that runs: the tests then
# say how to start one instead of failing to connect.
print_redis_tls_env() {
  redis_tls_pid >/dev/null || return 0
  echo "export ROWPUMP_REDIS_TLS_URL=rediss://localhost:$redis_tls_port/0"
  echo "export ROWPUMP_REDIS_TLS_CERTS=$redis_tls_certs"
  echo "export ROWPUMP_REDIS_SOCKET_URL=redis+unix://$redis_tls_socket?db=0"
}

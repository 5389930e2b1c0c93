# shellcheck shell=bash
# Sourced by scripts/services.sh: the private test CA and server certificate that the TLS MariaDB and the
# TLS Redis each make for themselves, made one way. openssl writes, in CERTS: ca.pem and ca-key.pem (a CA
# that signs certificates only), and server-cert.pem and server-key.pem for CN SERVER_CN with the
# subjectAltName SAN. EXTRA, a function, then runs in CERTS with the openssl binary as its argument (the
# TLS Redis signs a client certificate there). Nothing is made when CERTS/DONE_FILE is there already; the
# output goes to certs.log beside CERTS, shown, and CERTS removed, when openssl fails.
#
#   make_test_certificates CERTS DONE_FILE MESSAGE CA_NAME SERVER_CN SAN [EXTRA]
make_test_certificates() {
  local certs="$1" done_file="$2" message="$3" ca_name="$4" server_cn="$5" san="$6" extra="${7:-}"
  [[ -s "$certs/$done_file" ]] && return 0
  local openssl
  openssl="$(find_binary openssl)"
  rm -rf -- "$certs"
  mkdir -p "$certs"
  log "$message"
  (
    cd "$certs"
    "$openssl" req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=$ca_name" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -keyout ca-key.pem -out ca.pem
    "$openssl" req -newkey rsa:2048 -nodes -subj "/CN=$server_cn" -keyout server-key.pem -out server.csr
    printf '%s\n' "subjectAltName=$san" "basicConstraints=CA:FALSE" \
      "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >server.ext
    "$openssl" x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile server.ext -out server-cert.pem
    [[ -z "$extra" ]] || "$extra" "$openssl"
    chmod 600 ./*-key.pem
  ) >"${certs%/*}/certs.log" 2>&1 ||
    { show_log_tail "${certs%/*}/certs.log"; rm -rf -- "$certs"; die "openssl failed"; }
}

# shellcheck shell=bash disable=SC2034,SC2154  # (globals shared with bench/redis_setups.sh)
# Sourced by bench/redis_setups.sh after lib/common.sh: the Redis setups of scripts/services.sh beyond the
# plain one (a Redis Cluster, a TLS Redis, a Sentinel master with its replica), as redis-cli calls and server
# pids. Every server is local: its pid is its own answer (INFO server's process_id), checked to be a
# redis-server process, since a pid from elsewhere would count some other process's CPU.

# host_port URL: "HOST PORT" of the first address after the scheme, as in redis-cluster://h:p,h:p/ or
# rediss://h:p/0 (no user info: the script refuses URLs with a password).
host_port() {
  local rest="${1#*://}"
  rest="${rest%%[/?,]*}"
  echo "${rest%%:*} ${rest##*:}"
}

# no_password NAME: exits 2 when the URL in $NAME carries user info (it would reach rowpump's command line).
no_password() {
  local rest="${!1#*://}"
  [[ "${rest%%/*}" != *@* ]] ||
    { log "$1 carries a user or password; this script passes the URL on rowpump's command line, so give it none"; exit 2; }
}

# rcli HOST PORT ARGS...: redis-cli on a plain TCP server (database 0: the setups' URLs all name 0).
rcli() { redis-cli -h "$1" -p "$2" "${@:3}"; }
# tls_cli ARGS...: redis-cli on the TLS Redis, its certificate verified with the setup's CA.
tls_cli() { redis-cli -h "$tls_host" -p "$tls_port" --tls --cacert "$tls_ca" "$@"; }
# cluster_cli ARGS...: redis-cli on the cluster, following MOVED to the key's node.
cluster_cli() { redis-cli -c -h "$cluster_host" -p "$cluster_port" "$@"; }

# local_redis_pid CLI...: the pid of the redis-server that CLI talks to, or nothing.
local_redis_pid() {
  local pid
  pid="$("$@" INFO server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')"
  [[ "$pid" =~ ^[0-9]+$ && "$(cat "/proc/$pid/comm" 2>/dev/null)" == redis-server ]] && echo "$pid"
}

# cluster_slot_nodes KEY: the addresses (host:port) of the master that owns KEY's slot and of its replicas,
# from CLUSTER NODES, master first; sets cluster_slot to the slot.
cluster_slot_nodes() {
  local nodes master_id
  cluster_slot="$(cluster_cli CLUSTER KEYSLOT "$1")"
  nodes="$(cluster_cli CLUSTER NODES)"
  master_id="$(awk -v s="$cluster_slot" '$3 ~ /master/ {
      for (i = 9; i <= NF; ++i) {
        if ($i ~ /^\[/) continue
        n = split($i, r, "-"); lo = r[1]; hi = (n == 2) ? r[2] : r[1]
        if (s + 0 >= lo + 0 && s + 0 <= hi + 0) { print $1; exit }
      } }' <<<"$nodes")"
  [[ -n "$master_id" ]] || { log "no cluster node owns slot $cluster_slot"; exit 1; }
  awk -v m="$master_id" '$1 == m { sub(/@.*/, "", $2); print $2 }' <<<"$nodes"
  awk -v m="$master_id" '$4 == m && $3 ~ /slave/ && $3 !~ /fail/ { sub(/@.*/, "", $2); print $2 }' <<<"$nodes"
}

# pids_of ADDRESS...: the local pids of those plain-TCP servers, space-separated; exits 1 when one is unknown.
pids_of() {
  local address pid pids=""
  for address in "$@"; do
    pid="$(local_redis_pid rcli "${address%:*}" "${address##*:}")"
    [[ -n "$pid" ]] || { log "the pid of the Redis at $address is not known (is it local?)"; exit 1; }
    pids="${pids:+$pids }$pid"
  done
  echo "$pids"
}

# sentinel_master: "HOST PORT" of the Sentinel setup's master, as the first sentinel that answers sees it.
sentinel_master() {
  local address answer
  for address in ${sentinel_addresses//,/ }; do
    answer="$(rcli "${address%:*}" "${address##*:}" SENTINEL get-master-addr-by-name "$sentinel_name" 2>/dev/null |
      paste -sd' ')" || continue
    [[ "$answer" =~ ^[^\ ]+\ [0-9]+$ ]] && { echo "$answer"; return 0; }
  done
  log "no sentinel of $sentinel_addresses names a master for '$sentinel_name'"
  exit 1
}

# replica_of HOST PORT: "HOST PORT" of the server's first replica that is online, or nothing.
replica_of() {
  rcli "$1" "$2" INFO replication | tr -d '\r' |
    sed -n 's/^slave0:ip=\([^,]*\),port=\([0-9]*\),state=online.*/\1 \2/p'
}

# synced_replica HOST PORT: waits (at most 30 s) until WAIT 1 on the master answers 1: its replica is in step.
synced_replica() {
  local started=$SECONDS
  while ((SECONDS - started < 30)); do
    rcli "$1" "$2" SET rp_bench_setups_probe 1 >/dev/null 2>&1 || true
    [[ "$(rcli "$1" "$2" WAIT 1 500 2>/dev/null)" == 1 ]] && { rcli "$1" "$2" DEL rp_bench_setups_probe >/dev/null; return 0; }
    sleep 0.2
  done
  log "the master $1:$2 has no replica in step after 30 s"
  return 1
}

# wait_calls HOST PORT: how often the server has run WAIT (INFO commandstats), to count --redis-wait's pages.
wait_calls() {
  rcli "$1" "$2" INFO commandstats | tr -d '\r' | sed -n 's/^cmdstat_wait:calls=\([0-9]*\),.*/\1/p' | grep . || echo 0
}

# delete_keys CLI... -- PATTERN: deletes every key matching PATTERN through CLI (SCAN, then DEL each).
delete_keys() {
  local cli=() key
  while [[ "$1" != -- ]]; do cli+=("$1"); shift; done
  "${cli[@]}" --scan --pattern "$2" | while read -r key; do "${cli[@]}" DEL "$key" >/dev/null; done
}

# distinct_ids CLI... -- KEY: how many distinct "id" values the JSON payloads in list KEY hold.
distinct_ids() {
  local cli=()
  while [[ "$1" != -- ]]; do cli+=("$1"); shift; done
  "${cli[@]}" LRANGE "$2" 0 -1 | grep -o '"id":[0-9]*' | sort -u | wc -l
}

# start_detached CONFIG: starts `redis-server CONFIG` (it daemonizes) with no descriptor above stderr: the
# server would otherwise keep the build lock this script runs under for as long as it lives.
start_detached() {
  (
    for fd in /proc/"$BASHPID"/fd/*; do
      fd="${fd##*/}"
      ((fd > 2)) && eval "exec $fd>&-"
    done
    exec redis-server "$1" </dev/null >/dev/null 2>&1
  )
}

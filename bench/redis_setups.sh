#!/usr/bin/env bash
# The production Redis setups of issue 26 against the plain Redis: `rowpump backfill` of sbtest1 (1M rows)
# into one queue, side by side in one session. Per section a warm-up run of each (not counted), then
# BENCH_RUNS rounds, the order alternating every round; medians. The sections (scripts/services.sh's servers):
#
#   cluster   the Redis Cluster (ROWPUMP_REDIS_CLUSTER_URL; the queue in a hash tag, so one slot) against
#             the single Redis (ROWPUMP_REDIS_URL) on the same machine; goal: rows/s at least 0.85x. Also
#             against the Sentinel setup's master, a single Redis with one replica as the slot's master
#             has: like for like, since every node shares the same 2 cores
#   tls       the TLS Redis (ROWPUMP_REDIS_TLS_URL, certificate verified with ROWPUMP_REDIS_TLS_CERTS/ca.pem)
#             against plain TCP (ROWPUMP_REDIS_URL); goal: rows/s at least 0.8x; the TLS cost as client and
#             server CPU. The TLS Redis takes TLS only, so the two are two servers of one binary and config
#   wait      `--redis-wait 1` against none, both into the Sentinel setup's master (it has a replica; the
#             plain Redis has none), by a plain redis:// URL to it; the cost as rows/s and per-page latency
#   failover  one run through ROWPUMP_REDIS_SENTINEL_URL with --job-id (and --lease-timeout 5: leases held
#             under the old master's client ids would otherwise be waited out): the master is SIGKILLed once
#             a third of the rows are in, and the replica is polled every 50 ms; the pause is the seconds
#             from the kill to the first new row on it once promoted. Then the killed server is started
#             again from its own config file, as the new master's replica (what the sentinels would tell it),
#             and the script waits until the master's replica is in step and every sentinel sees it. Skipped
#             while a ctest runs (the suite's Sentinel tests use the same setup); run it under the build lock
#
# Before every run the servers return the pages of the list they freed to the kernel (MEMORY PURGE), so
# that no run finds the last one's memory still resident (see purge below).
# Every run is checked to leave exactly its rows in the queue (LLEN; the failover run also every id once),
# or the script stops. Per run (bench/lib/measure.sh): wall seconds, the client's user+sys CPU and peak RSS
# (GNU time), the CPU of the MariaDB and of the Redis servers involved (/proc/PID/stat, before and after):
# the single or TLS server; on the cluster the master that owns the queue's slot and its replicas; in the
# wait section the master and its replica. The results end with a Goals table computed from the medians.
#
#   eval "$(scripts/services.sh env)"
#   flock BUILD_LOCK bench/redis_setups.sh               # full size: about 5 minutes
#   ROWS=50000 BENCH_RUNS=1 bench/redis_setups.sh        # a check
#
# Environment: ROWPUMP_MYSQL_URL, ROWPUMP_REDIS_URL, and per section ROWPUMP_REDIS_CLUSTER_URL,
# ROWPUMP_REDIS_TLS_URL + ROWPUMP_REDIS_TLS_CERTS, ROWPUMP_REDIS_SENTINEL_URL (none with a password);
# ROWPUMP_BIN (build/rowpump), ROWS / BENCH_ROWS (0: the whole sbtest1), BENCH_RUNS (3), BENCH_SECTIONS
# ("cluster tls wait failover"), BENCH_PAGE_SIZE (10000), BENCH_WORKERS (nproc), BENCH_MAX_LOAD (nproc),
# BENCH_FORCE (0), BENCH_RESULTS (bench/results/redis_setups.md; in the small mode /tmp/rp_bench_redis_setups.md).
# The queue is {rp_bench_setups_PID} and the job id rp_bench_setups_PID; both are removed at the end.
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
source "$root/bench/lib/redis_setups.sh"
runs="$(setting BENCH_RUNS 3 count)"
small_rows="$(small_mode_rows)"
sections="$(setting BENCH_SECTIONS "cluster tls wait failover" '^ *(cluster|tls|wait|failover)( +(cluster|tls|wait|failover))* *$' \
  "cluster tls wait failover")"
page_size="$(setting BENCH_PAGE_SIZE 10000 count)"
workers="$(setting BENCH_WORKERS "$cores" count)"
results_file redis_setups "$small_rows"
queue="{rp_bench_setups_$$}"
job_id="rp_bench_setups_$$"
section_on() { [[ " $sections " == *" $1 "* ]]; }

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
section_on cluster && { require_env ROWPUMP_REDIS_CLUSTER_URL; no_password ROWPUMP_REDIS_CLUSTER_URL; }
section_on tls && { require_env ROWPUMP_REDIS_TLS_URL; require_env ROWPUMP_REDIS_TLS_CERTS; no_password ROWPUMP_REDIS_TLS_URL; }
if section_on wait || section_on failover || section_on cluster; then
  require_env ROWPUMP_REDIS_SENTINEL_URL
  no_password ROWPUMP_REDIS_SENTINEL_URL
fi
require_rowpump "$rowpump_bin"
require_tools redis-cli mariadb

make_private_dir rp_bench_redis_setups
mysql_connection
redis_connection
measure_setup
rowpump_password_files
declare -A url pids opts
url[single]="$redis_sink" pids[single]="$redis_pid" url[tcp]="$redis_sink" pids[tcp]="$redis_pid"
if section_on cluster; then
  read -r cluster_host cluster_port < <(host_port "$ROWPUMP_REDIS_CLUSTER_URL")
  mapfile -t slot_nodes < <(cluster_slot_nodes "$queue")
  cluster_slot="$(cluster_cli CLUSTER KEYSLOT "$queue")"
  url[cluster]="$ROWPUMP_REDIS_CLUSTER_URL" pids[cluster]="$(pids_of "${slot_nodes[@]}")"
fi
if section_on tls; then
  read -r tls_host tls_port < <(host_port "$ROWPUMP_REDIS_TLS_URL")
  tls_ca="$ROWPUMP_REDIS_TLS_CERTS/ca.pem"
  separator='?'
  [[ "$ROWPUMP_REDIS_TLS_URL" == *\?* ]] && separator='&'
  url[tls]="$ROWPUMP_REDIS_TLS_URL${separator}ssl-ca=$tls_ca" pids[tls]="$(local_redis_pid tls_cli)"
  [[ -n "${pids[tls]}" ]] || { log "the pid of the TLS Redis is not known (is it local?)"; exit 2; }
fi
sentinel_rest="${ROWPUMP_REDIS_SENTINEL_URL#*://}"
sentinel_addresses="${sentinel_rest%%/*}" sentinel_name="${sentinel_rest#*/}" sentinel_name="${sentinel_name%%/*}"
if section_on wait || section_on cluster; then
  read -r wait_host wait_port < <(sentinel_master)
  read -r wait_replica_host wait_replica_port < <(replica_of "$wait_host" "$wait_port")
  [[ -n "${wait_replica_port:-}" ]] || { log "the Sentinel master $wait_host:$wait_port has no replica online"; exit 1; }
  url[nowait]="redis://$wait_host:$wait_port/0" url[wait]="redis://$wait_host:$wait_port/0" opts[wait]="--redis-wait 1"
  pids[nowait]="$(pids_of "$wait_host:$wait_port" "$wait_replica_host:$wait_replica_port")" pids[wait]="${pids[nowait]}"
  url[replicated]="${url[nowait]}" pids[replicated]="${pids[nowait]}"
fi

# cli_of NAME ARGS...: redis-cli on NAME's server.
cli_of() {
  local name="$1"
  shift
  case "$name" in
    single | tcp) redis "$@" ;;
    cluster) cluster_cli "$@" ;;
    tls) tls_cli "$@" ;;
    nowait | wait | replicated) rcli "$wait_host" "$wait_port" "$@" ;;
  esac
}

cleanup() {
  trap - EXIT
  local name
  for name in "${!url[@]}"; do cli_of "$name" DEL "$queue" >/dev/null 2>&1 || true; done
  if declare -F failover_clean >/dev/null; then
    # The job holds the build lock's descriptor too: it must not outlive the script (TERM, then KILL).
    if [[ -n "${failover_job:-}" ]] && kill "$failover_job" 2>/dev/null; then
      for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$failover_job" 2>/dev/null || break; sleep 0.5; done
      kill -KILL "$failover_job" 2>/dev/null || true
    fi
    failover_clean
    [[ "${failover_needs_restore:-0}" != 1 ]] || failover_restore || log "RESTORE THE SENTINEL SETUP BY HAND"
  fi
  [[ "$small_rows" == 0 ]] || sql "DROP TABLE IF EXISTS rp_bench_sbtest_small" 2>/dev/null || true
  rm -rf "$private_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

refuse_when_loaded "$cores"
sbtest_table "$small_rows"
log "$rows rows of $table, page size $page_size, $workers workers, $runs rounds; queue $queue"
section_on cluster && log "cluster: slot $cluster_slot, on ${slot_nodes[*]} (pids ${pids[cluster]})"
section_on wait && log "wait: master $wait_host:$wait_port, replica $wait_replica_host:$wait_replica_port (pids ${pids[wait]})"

# purge NAME: every server of NAME (replicas too, once they have the DEL) hands the pages of the list it
# freed back to the kernel (MEMORY PURGE). Otherwise jemalloc keeps them for some seconds, and a run that
# comes sooner writes into resident memory while a later one faults its ~220 MB in again: twice the
# server's CPU and about 0.5 s of wall for 1M rows, decided by how long ago the last list was deleted
# (results/redis_setups.md). So every run starts from the same state, the one of a new queue.
purge() {
  local address
  case "$1" in
    single | tcp) redis MEMORY PURGE >/dev/null ;;
    tls) tls_cli MEMORY PURGE >/dev/null ;;
    cluster)
      rcli "${slot_nodes[0]%:*}" "${slot_nodes[0]##*:}" WAIT "$((${#slot_nodes[@]} - 1))" 1000 >/dev/null
      for address in "${slot_nodes[@]}"; do rcli "${address%:*}" "${address##*:}" MEMORY PURGE >/dev/null; done ;;
    nowait | wait | replicated)
      rcli "$wait_host" "$wait_port" WAIT 1 1000 >/dev/null
      rcli "$wait_host" "$wait_port" MEMORY PURGE >/dev/null
      rcli "$wait_replica_host" "$wait_replica_port" MEMORY PURGE >/dev/null ;;
  esac
}

# one_run NAME RECORD: one backfill into NAME's server, recorded as RECORD, checked to leave exactly $rows.
one_run() {
  local name="$1" record="$2" length calls_before calls_after
  cli_of "$name" DEL "$queue" >/dev/null
  purge "$name"
  redis_pid="${pids[$name]}"
  [[ "$name" != wait ]] || calls_before="$(wait_calls "$wait_host" "$wait_port")"
  local node_pids=() before=() pid i
  [[ "$name" != cluster ]] || read -r -a node_pids <<<"${pids[cluster]}"
  for pid in "${node_pids[@]}"; do before+=("$(cpu_ticks "$pid")"); done
  # shellcheck disable=SC2086  # opts: words
  measure "$record" "$rows" "$rowpump_bin" backfill --mysql "$mysql_sink" --table "$table" --page-size "$page_size" \
    --workers "$workers" --sink "${url[$name]}" --queue "$queue" ${opts[$name]:-}
  # The cluster's Redis CPU node by node (master first), the same counters as measure's sum.
  for i in "${!node_pids[@]}"; do
    awk -v t="$(($(cpu_ticks "${node_pids[$i]}") - before[i]))" -v hz="$clock_ticks" 'BEGIN { printf "%.2f ", t / hz }'
  done >>"$private_dir/$record.nodes"
  ((${#node_pids[@]} == 0)) || echo >>"$private_dir/$record.nodes"
  if [[ "$name" == wait ]]; then
    calls_after="$(wait_calls "$wait_host" "$wait_port")"
    echo $((calls_after - calls_before)) >>"$private_dir/$record.waits"
  fi
  length="$(cli_of "$name" LLEN "$queue")"
  [[ "$length" == "$rows" ]] || { log "$name left $length rows in $queue, expected $rows"; exit 1; }
  cli_of "$name" DEL "$queue" >/dev/null
  log "$record: $(last_run "$record")"
}

# rounds NAME...: a warm-up run of each, then $runs rounds, the order rotating each round (two names
# alternate).
rounds() {
  local names=("$@") name round i
  for name in "${names[@]}"; do one_run "$name" "warmup_$name"; done
  for ((round = 1; round <= runs; ++round)); do
    for ((i = 0; i < ${#names[@]}; ++i)); do
      name="${names[(round - 1 + i) % ${#names[@]}]}"
      one_run "$name" "$name"
    done
  done
}

# The failover section, in its own file for its length.
source "$root/bench/lib/redis_failover.sh"

section_on cluster && { log "section cluster"; rounds single replicated cluster; }
section_on tls && { log "section tls"; rounds tcp tls; }
section_on wait && { log "section wait"; rounds nowait wait; }
section_on failover && { log "section failover"; failover_run; }
uptime_after="$(uptime_line)"

source "$root/bench/lib/redis_setups_report.sh"
report >"$private_dir/results.md"
mkdir -p "$(dirname "$results")"
cp "$private_dir/results.md" "$results"
cat "$results"
log "results in $results"

# shellcheck shell=bash disable=SC2154  # (the globals of bench/redis_setups.sh)
# Sourced by bench/redis_setups.sh at the end: the markdown results, from $private_dir/NAME.times (columns of
# lib/measure.sh: wall rss client mariadb redis floor rows) and the failover section's globals.

# rows_per_s NAME: rows over NAME's median wall.
rows_per_s() { awk -v r="$rows" -v w="$(column_median "$1" 1)" 'BEGIN { printf "%.0f", r / w }'; }
# ratio A B: A's rows/s over B's (B's median wall over A's), two decimals.
ratio() { awk -v a="$(column_median "$1" 1)" -v b="$(column_median "$2" 1)" 'BEGIN { printf "%.2f", b / a }'; }
peak_mb() { cut -d' ' -f2 "$private_dir/$1.times" | sort -n | tail -n1 | awk '{ printf "%.0f", $1 / 1024 }'; }
# per_page_ms NAME: the mean time a worker spends on one page, median wall x workers / pages, where pages is
# the WAIT calls of a --redis-wait run (one per page written).
per_page_ms() {
  awk -v w="$(column_median "$1" 1)" -v n="$workers" -v p="$(median "$private_dir/wait.waits")" \
    'BEGIN { printf "%.1f", w * n / p * 1000 }'
}

# table NAME:LABEL... with the first as the baseline of the ratio column.
table() {
  local base="${1%%:*}" entry name
  echo "| setup | rows | wall s | rows/s | rows/s vs the first | client CPU s | MariaDB CPU s | Redis CPU s | floor s | peak RSS MB | runs: wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for entry in "$@"; do
    name="${entry%%:*}"
    echo "| ${entry#*:} | $rows | $(column_median "$name" 1) | $(rows_per_s "$name") | $(ratio "$name" "$base")x |" \
      "$(column_median "$name" 3) | $(column_median "$name" 4) | $(column_median "$name" 5) | $(column_median "$name" 6) |" \
      "$(peak_mb "$name") | $(joined "$private_dir/$name.times") |"
  done
}

# node_medians: per node of the queue's slot, "ADDRESS X s (a, b, c)" from $private_dir/cluster.nodes.
node_medians() {
  local i out=""
  for i in "${!slot_nodes[@]}"; do
    out="${out:+$out; }${slot_nodes[$i]} $(cut -d' ' -f$((i + 1)) "$private_dir/cluster.nodes" | median) s ($(cut -d' ' -f$((i + 1)) \
      "$private_dir/cluster.nodes" | paste -sd' ' | sed 's/ /, /g'))"
  done
  echo "$out"
}

met() { awk -v v="$1" -v g="$2" 'BEGIN { print (v >= g) ? "met" : "**not met**" }'; }
diff_of() { awk -v a="$(column_median "$1" "$3")" -v b="$(column_median "$2" "$3")" 'BEGIN { printf "%+.2f", a - b }'; }

report() {
  echo "# Production Redis setups (issue 26): cluster, TLS, --redis-wait, Sentinel failover"
  echo
  echo "\`bench/redis_setups.sh\`, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD)," \
    "$rows rows of \`$table\`, \`rowpump backfill --page-size $page_size --workers $workers\` (one range per worker)," \
    "$runs rounds after a warm-up of each, the order alternating; medians. $cores cores, shared (other builds may run)."
  echo "Load before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo "CPU: client from GNU time (user+sys), servers from /proc/PID/stat (utime+stime, every thread), before and after;"
  echo "floor = (client + MariaDB + Redis CPU) / cores. Every run left exactly $rows rows in the queue (LLEN)."
  echo "Before every run the queue was deleted and each server involved ran MEMORY PURGE (jemalloc returns the freed"
  echo "pages), so every run writes into memory the server faults in anew, as into a new queue."
  if section_on cluster; then
    echo
    echo "## Cluster against the single Redis"
    echo
    echo "Queue \`$queue\` in slot $cluster_slot, which lives on ${slot_nodes[*]} (master first, then its replicas):" \
      "the Redis CPU of the cluster is the sum over those nodes; of the single Redis, its one server; of the" \
      "single Redis with a replica (the Sentinel setup's master \`${url[replicated]}\`), master and replica."
    echo
    table single:"single Redis (\`$redis_sink\`)" replicated:"single Redis with one replica" \
      cluster:"Redis Cluster (\`$ROWPUMP_REDIS_CLUSTER_URL\`)"
    echo
    echo "The cluster's Redis CPU node by node, median (runs): $(node_medians)."
  fi
  if section_on tls; then
    echo
    echo "## TLS against plain TCP"
    echo
    echo "TLS: \`${ROWPUMP_REDIS_TLS_URL}?ssl-ca=.../ca.pem\` (certificate and name verified), the TLS-only Redis;" \
      "plain: the single Redis over TCP. Two servers of the same binary, neither persisting."
    echo
    table tcp:"plain TCP" tls:"TLS"
  fi
  if section_on wait; then
    echo
    echo "## --redis-wait 1 against none"
    echo
    echo "Both into the Sentinel setup's master \`${url[wait]}\` (the single Redis has no replica), its replica" \
      "$wait_replica_host:$wait_replica_port local; Redis CPU is master + replica. WAIT calls per run (INFO commandstats):" \
      "$(paste -sd' ' "$private_dir/wait.waits" | sed 's/ /, /g'), one per page. Per-page latency: median wall x workers / pages."
    echo
    table nowait:"no --redis-wait" wait:"\`--redis-wait 1\`"
    echo
    echo "| setup | pages | per-page ms |"
    echo "|---|---|---|"
    echo "| no --redis-wait | $(median "$private_dir/wait.waits") | $(per_page_ms nowait) |"
    echo "| \`--redis-wait 1\` | $(median "$private_dir/wait.waits") | $(per_page_ms wait) |"
  fi
  if section_on failover; then
    echo
    echo "## Sentinel failover during a job"
    echo
    if [[ "${failover_ran:-0}" == 1 ]]; then
      echo "\`rowpump backfill --sink $ROWPUMP_REDIS_SENTINEL_URL --job-id ID --lease-timeout 5\`; the master" \
        "$failover_old_host:$failover_old_port SIGKILLed at $failover_killed_at rows; its replica $failover_new_host:$failover_new_port" \
        "polled every 50 ms held $failover_base rows when promoted, then more **$failover_pause s after the kill**." \
        "The job took $failover_wall s in all (exit $failover_rc$( ((failover_resumed)) && echo ", then resumed once")) and left" \
        "$rows rows, every id once. Its summary: \`$failover_summary\`. Then the killed server was started again as the" \
        "new master's replica; the setup was whole (replica in step, every sentinel listing it) $failover_restored_s s later."
    else
      echo "Skipped: a ctest was running, and the section kills the master the suite's Sentinel tests use."
    fi
  fi
  echo
  echo "## Goals"
  echo
  echo "| case | goal | figures | result |"
  echo "|---|---|---|---|"
  if section_on cluster; then
    echo "| cluster vs single Redis | rows/s >= 0.85x | $(rows_per_s cluster) vs $(rows_per_s single) rows/s = $(ratio cluster single)x |" \
      "$(met "$(ratio cluster single)" 0.85) |"
    echo "| cluster vs single Redis with one replica (like for like) | rows/s >= 0.85x | $(rows_per_s cluster) vs" \
      "$(rows_per_s replicated) rows/s = $(ratio cluster replicated)x | $(met "$(ratio cluster replicated)" 0.85) |"
  fi
  if section_on tls; then
    echo "| TLS vs plain TCP | rows/s >= 0.8x; TLS cost as CPU | $(rows_per_s tls) vs $(rows_per_s tcp) rows/s = $(ratio tls tcp)x;" \
      "client CPU $(diff_of tls tcp 3) s, server CPU $(diff_of tls tcp 5) s ($(column_median tls 3) vs $(column_median tcp 3)," \
      "$(column_median tls 5) vs $(column_median tcp 5)) | $(met "$(ratio tls tcp)" 0.8) |"
  fi
  if section_on wait; then
    echo "| \`--redis-wait 1\` vs none | cost reported | $(rows_per_s wait) vs $(rows_per_s nowait) rows/s = $(ratio wait nowait)x;" \
      "per page $(per_page_ms wait) vs $(per_page_ms nowait) ms | reported |"
  fi
  if section_on failover; then
    if [[ "${failover_ran:-0}" == 1 ]]; then
      echo "| Sentinel failover | pause reported | $failover_pause s from the kill to the first page on the new master | reported |"
    else
      echo "| Sentinel failover | pause reported | skipped (a ctest was running) | not measured |"
    fi
  fi
}

#!/usr/bin/env bash
# What the status page costs a run: `rowpump backfill` of the 1M-row sysbench table into a Redis list, with
# --http in both variants, without and with a headless Chromium open on the page (GET /, which polls
# /status once a second and redraws). The browser is pointed at the page as soon as the endpoint answers
# and stays on it until the run ends; its own CPU is counted apart (on a real deployment it runs on
# another machine). Goal: the page costs under 1% of the run's rows/s.
#
# BENCH_RUNS rounds; each runs both variants, the order alternating between rounds so that a burst of
# load from elsewhere hits both alike. Every run is checked to have written every row. Prints, and writes
# to BENCH_RESULTS, a markdown table: median wall time and rows/s, client CPU, MariaDB and Redis CPU, and
# Chromium's CPU, with how many /status polls the page made. Refuses to run while the 1-minute load
# average is above BENCH_MAX_LOAD (default: the number of cores), unless BENCH_FORCE=1.
#
#   eval "$(scripts/services.sh env)"
#   bench/web_page_polling.sh                       # uses build/rowpump
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), BENCH_RUNS
# (3), BENCH_HTTP_PORT (18977: the endpoint's, free on 127.0.0.1), BENCH_WORKERS (rowpump's default when unset), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS
# (bench/results/web_page_polling.md), BENCH_TABLE (sbtest1; created by bench/sysbench_table.sh when missing).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$root/bench/lib/measure.sh"
source "$root/bench/lib/browser.sh"
runs="$(setting BENCH_RUNS 3 count)"
workers="$(setting BENCH_WORKERS "" optional-count)"
table="$(setting BENCH_TABLE sbtest1 name)"
port="$(setting BENCH_HTTP_PORT 18977 count)"
results_file web_page_polling

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli curl chromium chromedriver

refuse_when_loaded "$cores"
[[ "$table" != sbtest1 ]] || "$root/bench/sysbench_table.sh"

make_private_dir rp_bench_web_page
trap 'browser_stop; rm -rf "$private_dir"' EXIT
mysql_connection
redis_connection
rowpump_password_files
measure_setup

rows="$(sql "SELECT COUNT(*) FROM $table")"
queue="rp_bench:web_page:$$"
browser_start "$private_dir"

# Points the browser at the run's page once its endpoint answers, and stays until the run ends; then
# writes how many /status polls the page made, and the browser's CPU ticks meanwhile.
watch_with_browser() {
  local variant="$1" ticks polls=0
  for _ in $(seq 1 1000); do
    ! curl -s -o /dev/null "http://127.0.0.1:$port/status" || break
    sleep 0.01
  done
  browser_cpu_snapshot >"$private_dir/browser.before"
  [[ "$variant" == plain ]] || browser_open "http://127.0.0.1:$port/"
  # Until the run ends; the plain run is asked too, so that both variants see the same requests from here.
  while curl -s -o /dev/null "http://127.0.0.1:$port/status"; do sleep 0.2; done
  [[ "$variant" == plain ]] ||
    polls="$(browser_script "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/status')).length")"
  ticks="$(browser_cpu_since "$private_dir/browser.before")"
  [[ "$variant" == plain ]] || browser_open "about:blank"
  echo "$polls $ticks" >>"$private_dir/$variant.browser"
}

timed_run() {
  local variant="$1" round="$2" count watcher
  local args=(-q backfill --table "$table" --sink "$redis_sink" --queue "$queue" --http "127.0.0.1:$port")
  [[ -z "$workers" ]] || args+=(--workers "$workers")
  redis UNLINK "$queue" >/dev/null
  watch_with_browser "$variant" &
  watcher=$!
  measure "$variant" "$rows" "$rowpump_bin" "${args[@]}"
  wait "$watcher"
  count="$(redis LLEN "$queue")"
  redis UNLINK "$queue" >/dev/null
  [[ "$count" == "$rows" ]] || { log "$variant run $round wrote $count rows, expected $rows"; exit 1; }
  last_wall "$variant"
}

log "$rows rows of $db_name.$table into Redis; load $load_before on $cores cores; $runs rounds"
for round in $(seq 1 "$runs"); do
  if (( round % 2 )); then order="plain page"; else order="page plain"; fi
  for variant in $order; do
    seconds="$(timed_run "$variant" "$round")"
    log "round $round $variant: $seconds s"
  done
done
uptime_after="$(uptime_line)"

median_of() { cut -d' ' -f"$2" "$private_dir/$1.browser" | median; }
{
  echo "# The status page's cost: \`rowpump backfill --http\` without and with a browser on the page"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); rowpump $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?');"
  echo "$(uname -sr), $cores cores; $rows rows of \`$table\` into a Redis list, JSON payloads, default page size,"
  echo "${workers:-default} workers, \`--http 127.0.0.1:$port\` in both variants. \"page\": headless Chromium opened on"
  echo "GET / as soon as the endpoint answered, polling /status once a second until the run ended."
  echo "Produced by \`bench/web_page_polling.sh\`; Chromium runs on the same machine here (its CPU is apart)."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "$runs runs per variant, alternating order. Medians; cost = rows/s without the page / rows/s with it - 1"
  echo "(goal: < 1%)."
  echo
  echo "| variant | wall (median) | rows/s | client CPU | MariaDB CPU | Redis CPU | Chromium CPU | /status polls | wall runs |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for variant in plain page; do
    awk -v v="$variant" -v w="$(column_median "$variant" 1)" -v c="$(column_median "$variant" 3)" \
        -v m="$(column_median "$variant" 4)" -v r="$(column_median "$variant" 5)" -v n="$rows" \
        -v b="$(median_of "$variant" 2)" -v hz="$clock_ticks" -v p="$(median_of "$variant" 1)" \
        -v runs="$(joined "$private_dir/$variant.times")" \
        'BEGIN { printf "| %s | %.3f s | %.0f | %.2f s | %.2f s | %.2f s | %.2f s | %d | %s |\n",
                 v == "plain" ? "no browser" : "browser on the page", w, n / w, c, m, r, b / hz, p, runs }'
  done
  echo
  awk -v p="$(column_median plain 1)" -v q="$(column_median page 1)" \
      'BEGIN { printf "Cost in rows/s: %+.1f%% (goal: < 1%%).\n", (q / p - 1) * 100 }'
} | tee "$results"

#!/usr/bin/env bash
# What the status page's polling costs a run (goal: under 1% of its rows/s). `rowpump backfill` of the
# 1M-row sysbench table into a Redis list, `--http` on 127.0.0.1 in every run, in two parts:
#
#  1. Capped runs (`--rate BENCH_RATE`, 65,000 rows/s: about 15 s, so the page polls about 15 times a run):
#     the wall time is fixed by the cap, so the cost shows as the client's CPU per row, not as rows/s.
#     Three variants, the order rotating between rounds:
#       plain  no client on the endpoint;
#       page   headless Chromium on GET / from the moment the endpoint answers (one /status poll a second
#              and a redraw; its own CPU is counted apart: on a real deployment it runs elsewhere);
#       burst  /status asked back to back for the whole run (curl, many URLs a process), so that the CPU of
#              one answer can be measured: thousands of answers a run instead of 15.
#  2. Full-speed runs (no cap, about 1.5 s each): rows/s without and with the page. They are too short for
#     more than a poll or two, so they show what loading the page costs a short run more than the polling.
#
# The result file gives, for each variant, median wall, rows/s, the client's CPU (in all, and in
# microseconds per row), MariaDB's, Redis's and Chromium's CPU and the /status answers; then the page's
# cost as client CPU per row (capped runs), the CPU of one /status answer (burst against plain), and what
# one poll a second would take from a full-speed run (that CPU against the CPU the run spends a second);
# and the full-speed rows/s. Every run is checked to have written every row. Refuses to run while the
# 1-minute load average is above BENCH_MAX_LOAD (default: the number of cores), unless BENCH_FORCE=1.
#
#   eval "$(scripts/services.sh env)"
#   bench/web_page_polling.sh                       # uses build/rowpump
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), BENCH_RUNS
# (3 rounds of the capped variants), BENCH_FULL_RUNS (3 rounds at full speed), BENCH_RATE (65000),
# BENCH_HTTP_PORT (18977: free on 127.0.0.1), BENCH_WORKERS (rowpump's default when unset), BENCH_MAX_LOAD
# (nproc), BENCH_FORCE (0), BENCH_RESULTS (bench/results/web_page_polling.md), BENCH_TABLE (sbtest1;
# created by bench/sysbench_table.sh when missing).
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
source "$root/bench/lib/browser.sh"
runs="$(setting BENCH_RUNS 3 count)"
full_runs="$(setting BENCH_FULL_RUNS 3 count)"
rate="$(setting BENCH_RATE 65000 count)"
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
url="http://127.0.0.1:$port"
browser_start "$private_dir"

# The client on the endpoint during one run, started beside it: waits until the endpoint answers (every
# variant alike), then does what VARIANT says until the run ends ($private_dir/ended appears; nothing asks
# the endpoint to find that out). Writes "ANSWERS BROWSER_TICKS" to
# $private_dir/NAME.clients: the /status answers the client had, and Chromium's CPU ticks meanwhile.
client() {
  local name="$1" variant="$2" answers=0 batch ok
  # Up to 30 s: a run that failed before its endpoint came up ends the script (measure), not this loop.
  for _ in $(seq 1 3000); do
    ! curl -s -o /dev/null "$url/status" || break
    sleep 0.01
  done
  browser_cpu_snapshot >"$private_dir/browser.before"
  case "$variant" in
    page)
      browser_open "$url/"
      until [[ -e "$private_dir/ended" ]]; do sleep 0.1; done
      answers="$(browser_script "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/status') && (e.responseStatus === undefined || e.responseStatus === 200)).length")"
      ;;
    burst)
      # 100 URLs a curl: one process each 100 answers, so the machine's CPU goes to the endpoint more than
      # to starting curl. A batch with an answer other than 200 means the run ended.
      batch="$(printf "$url/status %.0s" $(seq 1 100))"
      while :; do
        # shellcheck disable=SC2086  # the batch: 100 URLs
        ok="$(curl -s -o /dev/null -w '%{http_code}\n' $batch | grep -c '^200$' || true)"
        answers=$((answers + ok))
        (( ok == 100 )) || break
      done
      ;;
    plain)
      until [[ -e "$private_dir/ended" ]]; do sleep 0.1; done
      ;;
  esac
  echo "$answers $(browser_cpu_since "$private_dir/browser.before")" >>"$private_dir/$name.clients"
  [[ "$variant" != page ]] || browser_open "about:blank"
}

# run_variant NAME VARIANT [ROWPUMP ARGS...]: one measured run with its client.
run_variant() {
  local name="$1" variant="$2" count watcher
  shift 2
  local args=(-q backfill --table "$table" --sink "$redis_sink" --queue "$queue" --http "127.0.0.1:$port" "$@")
  [[ -z "$workers" ]] || args+=(--workers "$workers")
  redis UNLINK "$queue" >/dev/null
  rm -f "$private_dir/ended"
  client "$name" "$variant" &
  watcher=$!
  measure "$name" "$rows" "$rowpump_bin" "${args[@]}"
  touch "$private_dir/ended"
  wait "$watcher"
  count="$(redis LLEN "$queue")"
  redis UNLINK "$queue" >/dev/null
  [[ "$count" == "$rows" ]] || { log "$name run wrote $count rows, expected $rows"; exit 1; }
}

capped() { run_variant "capped_$1" "$1" --rate "$rate"; }
full() { run_variant "full_$1" "$1"; }
rounds() {
  local kind="$1" count="$2" round i variant line
  shift 2
  local variants=("$@")
  for ((round = 0; round < count; ++round)); do
    line="$kind round $((round + 1)):"
    for ((i = 0; i < ${#variants[@]}; ++i)); do
      variant="${variants[(round + i) % ${#variants[@]}]}"
      "$kind" "$variant"
      line+=" $variant $(last_run "${kind}_$variant"), answers $(tail -n1 "$private_dir/${kind}_$variant.clients" | cut -d' ' -f1);"
    done
    log "${line%;}"
  done
}

log "$rows rows of $db_name.$table into Redis; load $load_before on $cores cores; $runs capped rounds at $rate rows/s, $full_runs at full speed"
rounds capped "$runs" plain page burst
rounds full "$full_runs" plain page
uptime_after="$(uptime_line)"

# client_median NAME COLUMN: the median of a column of NAME's client lines (1: answers, 2: Chromium ticks).
client_median() { cut -d' ' -f"$2" "$private_dir/$1.clients" | median; }
table_row() {
  local name="$1" label="$2"
  awk -v l="$label" -v n="$rows" -v w="$(column_median "$name" 1)" -v c="$(column_median "$name" 3)" \
      -v m="$(column_median "$name" 4)" -v r="$(column_median "$name" 5)" -v hz="$clock_ticks" \
      -v b="$(client_median "$name" 2)" -v a="$(client_median "$name" 1)" \
      -v runs="$(joined "$private_dir/$name.times")" -v cpus="$(cut -d' ' -f3 "$private_dir/$name.times" | paste -sd' ' | sed 's/ /, /g')" \
      'BEGIN { printf "| %s | %.3f s | %.0f | %.2f s | %.3f | %.2f s | %.2f s | %.2f s | %d | %s | %s |\n",
               l, w, n / w, c, c / n * 1e6, m, r, b / hz, a, runs, cpus }'
}
header() {
  echo "| variant | wall (median) | rows/s | client CPU | client CPU, µs/row | MariaDB CPU | Redis CPU | Chromium CPU | /status answers | wall runs | client CPU runs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
}

{
  echo "# The status page's polling: what it costs \`rowpump backfill --http\`"
  echo
  build_line
  echo "$(servers_line); $rows rows of \`$table\` into a Redis list, JSON payloads,"
  echo "default page size, ${workers:-default} workers, \`--http 127.0.0.1:$port\` in every run. Produced by"
  echo "\`bench/web_page_polling.sh\` (the script's header says what each variant does); Chromium runs on the"
  echo "same machine here, its CPU apart. Medians of each variant's runs, the order rotating between rounds."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "## Capped at $rate rows/s ($runs rounds): the cost as client CPU per row"
  echo
  header
  table_row capped_plain "no client"
  table_row capped_page "browser on the page"
  table_row capped_burst "/status back to back"
  echo
  echo "## Full speed ($full_runs rounds): the cost as rows/s"
  echo
  header
  table_row full_plain "no client"
  table_row full_page "browser on the page"
  echo
  awk -v p="$(column_median capped_plain 3)" -v q="$(column_median capped_page 3)" \
      -v b="$(column_median capped_burst 3)" -v n="$(client_median capped_burst 1)" \
      -v polls="$(client_median capped_page 1)" -v wp="$(column_median capped_page 1)" \
      -v fw="$(column_median full_plain 1)" -v fq="$(column_median full_page 1)" \
      -v fc="$(column_median full_plain 3)" -v fm="$(column_median full_plain 4)" -v fr="$(column_median full_plain 5)" \
      -v cores="$cores" '
    BEGIN {
      printf "- Capped runs, the page against no client: client CPU per row %+.1f%% (%.2f s against %.2f s a run, with %d polls in %.1f s).\n",
             (q / p - 1) * 100, q, p, polls, wp
      per = (b - p) / n
      printf "- One /status answer: %.3f ms of the client'"'"'s CPU ((%.2f s - %.2f s) / %d answers in the burst runs).\n", per * 1000, b, p, n
      busy = (fc + fm + fr) / fw
      printf "- One poll a second at full speed: %.3f ms of CPU a second, against the %.2f cores (client %.2f s, MariaDB %.2f s, Redis %.2f s in %.3f s) that a full-speed run keeps busy: %.3f%% of its CPU, so about that share of its rows/s where CPU bounds the run (goal: < 1%%).\n",
             per * 1000, busy, fc, fm, fr, fw, per / busy * 100
      printf "- Full speed, rows/s lost with the page open: %.1f%% (median walls %.3f s with it, %.3f s without; the page loads and polls once or twice in such a run).\n",
             (1 - fw / fq) * 100, fq, fw
    }'
} | tee "$results"

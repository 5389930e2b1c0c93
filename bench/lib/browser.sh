# shellcheck shell=bash disable=SC2034  # (the globals set here are for the sourcing scripts)
# Sourced after lib/common.sh: one headless Chromium, driven over chromedriver's WebDriver HTTP API with
# curl, for the benchmarks that need a page open (bench/web_page_polling.sh).
#
#   browser_start DIR        starts chromedriver and a session (profile and log under DIR)
#   browser_open URL         navigates the session to URL
#   browser_script JS        runs JS (a function body: `return ...`), prints its value as JSON
#   browser_cpu_snapshot     Chromium's processes and their CPU ticks so far; browser_cpu_since FILE: since
#   browser_stop             ends the session and chromedriver (safe to call twice)

browser_start() {
  local dir="$1" port=""
  mkdir -p "$dir/chromium-profile"
  chromedriver --port=0 >"$dir/chromedriver.log" 2>&1 &
  browser_driver_pid=$!
  for _ in $(seq 1 300); do
    port="$(grep -o 'started successfully on port [0-9]*' "$dir/chromedriver.log" | grep -o '[0-9]*$')" || true
    [[ -z "$port" ]] || break
    sleep 0.05
  done
  [[ -n "$port" ]] || { log "chromedriver did not start:"; cat "$dir/chromedriver.log" >&2; exit 1; }
  browser_url="http://127.0.0.1:$port"
  local args='"--headless","--no-sandbox","--disable-gpu","--disable-quic","--no-first-run",'
  args+='"--disable-background-networking","--disable-component-update","--disable-sync","--window-size=1200,900",'
  args+="\"--user-data-dir=$dir/chromium-profile\""
  browser_session="$(curl -s -X POST "$browser_url/session" -H 'Content-Type: application/json' \
    -d "{\"capabilities\":{\"alwaysMatch\":{\"goog:chromeOptions\":{\"binary\":\"/usr/bin/chromium\",\"args\":[$args]}}}}" |
    grep -o '"sessionId":"[^"]*"' | cut -d'"' -f4)"
  [[ -n "$browser_session" ]] || { log "no WebDriver session"; exit 1; }
}

browser_open() {
  curl -s -o /dev/null -X POST "$browser_url/session/$browser_session/url" -H 'Content-Type: application/json' \
    -d "{\"url\":\"$1\"}"
}

browser_script() {
  local script="${1//\"/\\\"}"
  curl -s -X POST "$browser_url/session/$browser_session/execute/sync" -H 'Content-Type: application/json' \
    -d "{\"script\":\"$script\",\"args\":[]}" | sed -E 's/^\{"value":(.*)\}$/\1/'
}

# browser_cpu_snapshot: "PID TICKS" for every descendant of chromedriver (Chromium's processes), user +
# system ticks so far. browser_cpu_since FILE: the ticks spent since that snapshot (FILE) by the processes
# alive now; one that started meanwhile counts from 0, one that ended meanwhile is not counted.
browser_descendants() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do echo "$child"; browser_descendants "$child"; done
}
browser_cpu_snapshot() {
  local pid
  for pid in $(browser_descendants "$browser_driver_pid"); do
    awk -v p="$pid" '{ print p, $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || true
  done
}
browser_cpu_since() {
  browser_cpu_snapshot | awk 'NR == FNR { before[$1] = $2; next } { total += $2 - ($1 in before ? before[$1] : 0) }
                              END { print total + 0 }' "$1" -
}

browser_stop() {
  if [[ -n "${browser_session:-}" ]]; then
    curl -s -o /dev/null -X DELETE "$browser_url/session/$browser_session" || true
    browser_session=""
  fi
  if [[ -n "${browser_driver_pid:-}" ]]; then
    kill "$browser_driver_pid" 2>/dev/null || true
    wait "$browser_driver_pid" 2>/dev/null || true
    browser_driver_pid=""
  fi
}

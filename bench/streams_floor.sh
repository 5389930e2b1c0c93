#!/usr/bin/env bash
# The floor under issue 30's stream goal: what one Redis server's CPU costs for 1M stream entries against
# 1M list items, with no client work at all. redis-benchmark (one connection, pipelined) drives a private
# redis-server started here (no persistence, the default stream node sizes), so that only Redis's own
# command execution is measured, from its /proc/PID/stat:
#   - XADD:        1M pipelined `XADD KEY * payload P`, one entry a command, 10,000 a round trip (what
#                  --push xadd sends: a page of the default 10,000 rows);
#   - XADD in Lua: 1,000 EVALs each running 1,000 XADDs (no parsing or reply per entry) of one payload;
#   - the same with 1,000 payloads an EVAL, each XADDed once: what the stream sink sent before it sent plain
#                  XADDs (Redis turns each argument into a Lua string, then back);
#   - RPUSH:       1,000 pipelined RPUSHes of 1,000 values each (what the list sink sends: variadic).
# P is a 190-byte payload, about the JSON row of sbtest1, different in each entry. BENCH_RUNS rounds, alternating; medians.
# A stream entry is one command's work, or one redis.call's in Lua: the stream's wall time cannot fall
# below its Redis CPU, since Redis runs commands on one thread.
#
#   bench/streams_floor.sh
#
# Environment: BENCH_RUNS (5), BENCH_PORT (6599, the private server's), BENCH_MAX_LOAD (nproc), BENCH_FORCE
# (0), BENCH_RESULTS (bench/results/streams_floor.md).
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 5 count)"
port="$(setting BENCH_PORT 6599 whole)"
results_file streams_floor
require_tools redis-server redis-benchmark redis-cli
refuse_when_loaded "$cores"
make_private_dir

private_redis "$port"
use_private_redis
pid="$private_redis_pid"
# 178 hex digits and redis-benchmark's __rand_int__ (12 digits, new in each argument of each command): each
# entry's payload differs, as rows' do. A script given one string 1,000 times would have Lua make it once.
payload="$(head -c 89 /dev/urandom | od -An -tx1 | tr -d ' \n')__rand_int__"

uptime_before="$(uptime_line)"
one() {  # NAME COMMAND...: one run into an empty key; appends "redis-CPU-s wall-s" to NAME's file
  local before after start end length
  redis DEL k >/dev/null
  # Every run fills pages Redis has just handed back: a run into pages it kept cost it up to half as much.
  settle_redis 60
  before="$(cpu_ticks "$pid")"
  start="$(date +%s.%N)"
  "${@:2}" >/dev/null
  end="$(date +%s.%N)"
  after="$(cpu_ticks "$pid")"
  length="$(redis-cli -p "$port" EVAL "return redis.call('TYPE', KEYS[1]).ok == 'stream' and redis.call('XLEN', KEYS[1]) or redis.call('LLEN', KEYS[1])" 1 k)"
  [[ "$length" == 1000000 ]] || fail "$1 left $length entries, expected 1000000"
  awk -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" -v s="$start" -v e="$end" \
    'BEGIN { printf "%.2f %.3f\n", t / hz, e - s }' >> "$private_dir/$1.times"
}
bench() {
  redis-benchmark -p "$port" -c 1 -q -r 1000000000 "$@"
}
run() {
  case "$1" in
    xadd) one xadd bench -P 10000 -n 1000000 XADD k '*' payload "$payload" ;;
    xadd_lua) one xadd_lua bench -P 4 -n 1000 EVAL \
      "for i = 1, 1000 do redis.call('XADD', KEYS[1], '*', 'payload', ARGV[1]) end" 1 k "$payload" ;;
    xadd_lua_args) one xadd_lua_args bench -P 4 -n 1000 EVAL \
      "for i = 1, #ARGV do redis.call('XADD', KEYS[1], '*', 'payload', ARGV[i]) end" 1 k \
      $(seq 1000 | sed "s/.*/$payload/") ;;
    rpush) one rpush bench -P 4 -n 1000 EVAL "redis.call('RPUSH', KEYS[1], unpack(ARGV))" 1 k \
      $(seq 1000 | sed "s/.*/$payload/") ;;
  esac
}
names=(xadd xadd_lua xadd_lua_args rpush)
for ((round = 0; round < runs; round++)); do
  for ((i = 0; i < ${#names[@]}; i++)); do run "${names[$(((i + round) % ${#names[@]}))]}"; done
done
uptime_after="$(uptime_line)"

row() {  # LABEL NAME
  echo "| $1 | $(column_median "$2" 1) | $(column_median "$2" 2) | $(cut -d' ' -f1 "$private_dir/$2.times" | paste -sd' ' | sed 's/ /, /g') |"
}
{
  echo "# The floor under a stream's rows/s: Redis's own CPU for 1M stream entries against 1M list items"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(uname -sr), $cores cores; $(redis-server --version | cut -d' ' -f1-3)."
  echo "Produced by \`bench/streams_floor.sh\`: a private redis-server (no persistence, default stream node sizes),"
  echo "driven by redis-benchmark over one pipelined connection; payloads of 190 bytes, each different; MEMORY PURGE before each run. $runs rounds, alternating; medians."
  echo "Every run is checked to leave exactly 1,000,000 entries."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "| what Redis runs for 1M entries | Redis CPU s | wall s | runs, Redis CPU s |"
  echo "|---|---|---|---|"
  row "1M \`XADD k * payload P\`, pipelined, 10,000 a round trip (one entry a command: what \`--push xadd\` sends)" xadd
  row "1,000 EVALs of 1,000 \`redis.call('XADD', ...)\` each, of one payload" xadd_lua
  row "1,000 EVALs of 1,000 payloads each, one \`redis.call('XADD', ...)\` a payload (what the stream sink sent before plain XADDs)" xadd_lua_args
  row "1,000 EVALs of one \`RPUSH\` of 1,000 values (as variadic, what the list sink sends)" rpush
} > "$results"
log "results in $results"

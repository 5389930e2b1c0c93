#!/usr/bin/env bash
# The floor under issue 30's BullMQ goal: what one Redis server's CPU costs for 1M BullMQ jobs with no client
# work at all, against what rowpump's own script costs for them. Every BullMQ job is the same writes whoever
# makes it (addBulk or rowpump): a job hash (name, data, opts, timestamp, delay, priority), an "added" and a
# "waiting" entry in the queue's `events` stream (the second with MAXLEN ~ 10000), its id in `wait`. Cases,
# each 1M jobs in pages of 1,000 into a private redis-server started here (no persistence, default encodings),
# replayed with `redis-cli --pipe` from a file written before the run, so that only Redis's own command
# execution is measured, from its /proc/PID/stat:
#   - lua:    one EVALSHA a page whose script does only, per job, the HSET and the two XADDs, then one LPUSH
#             of the page's 1,000 ids; every argument precomputed (no string work in Lua);
#   - plain:  the same writes as pipelined plain commands (three a job, one LPUSH a page);
#   - hset:   the job hashes alone (HSET a job, LPUSH a page): what the two events entries leave out;
#   - script: rowpump's own page script (bullmq_scripts::add_jobs, taken from the source) on the arguments
#             rowpump sends for those jobs; and script10k, the same in one call a page of 10,000, rowpump's
#             default --page-size (which rowpump now sends as calls of 1,000, in one MULTI/EXEC: one call
#             of 10,000 cost Redis a fifth more).
# A job's data is a real one's: rowpump's JSON of sbtest1's row 1 ({"id":1,"k":502438,"c":..,"pad":..}, 213
# bytes; its id set to each job's), name sync-row, opts {"attempts":0}, as `bench/bullmq_vs_addbulk.sh`
# leaves them. BENCH_RUNS rounds, alternating; medians. Every run is checked to leave 1M jobs in `wait` and
# 1M job hashes. Redis runs commands on one thread: rowpump's wall for 1M jobs cannot fall below the Redis
# CPU they cost.
#
#   bench/bullmq_floor.sh
#
# Environment: BENCH_RUNS (5), BENCH_JOBS (1000000), BENCH_PORT (6598, the private server's), BENCH_MAX_LOAD
# (nproc), BENCH_FORCE (0), BENCH_RESULTS (bench/results/bullmq_floor.md). Needs redis-server, redis-cli and
# python3. A private server, so no other session's work on a shared Redis is counted.
set -euo pipefail

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
runs="$(setting BENCH_RUNS 5 count)"
jobs="$(setting BENCH_JOBS 1000000 count)"
port="$(setting BENCH_PORT 6598 whole)"
results_file bullmq_floor
require_tools redis-server redis-cli python3
refuse_when_loaded "$cores"
make_private_dir

private_redis "$port"
pid="$private_redis_pid"

prefix=rp_bench_bull
queue=rp_bench_bullmq_floor
page=1000
# rowpump's data of sbtest1's row 1 (`rowpump backfill --format bullmq`, HGET data of its job).
printf '%s' '{"id":1,"k":502438,"c":"42540607069-49806656955-83954966314-27767821416-68474072153-93535514980-54865033270-68549910134-46489474418-55083914421","pad":"30441872116-89955592363-18079806006-50228587556-02532885705"}' \
  >"$private_dir/data.json"
# The floor script: per job the HSET of rowpump's job hash and BullMQ's two XADDs, one LPUSH a page.
# ARGV: name, opts, timestamp, then the page's N ids, N job keys, N data.
floor_script="local n = (#ARGV - 3) / 3
local name, opts, timestamp = ARGV[1], ARGV[2], ARGV[3]
local rcall, events = redis.call, KEYS[2]
for i = 4, n + 3 do
  rcall('HSET', ARGV[i + n], 'name', name, 'data', ARGV[i + 2 * n], 'opts', opts, 'timestamp', timestamp,
        'delay', '0', 'priority', '0')
  rcall('XADD', events, '*', 'event', 'added', 'jobId', ARGV[i], 'name', name)
  rcall('XADD', events, 'MAXLEN', '~', '10000', '*', 'event', 'waiting', 'jobId', ARGV[i])
end
rcall('LPUSH', KEYS[1], unpack(ARGV, 4, n + 3))"
# rowpump's own, from the source (the raw string between R"lua( and )lua").
sed -n '/R"lua(/,/)lua"/p' "$root/src/backend/redis/bullmq_scripts.hpp" | sed '1d;$d' >"$private_dir/add_jobs.lua"
[[ -s "$private_dir/add_jobs.lua" ]] || fail "no add_jobs script in src/backend/redis/bullmq_scripts.hpp"
declare -A sha
sha[lua]="$(redis-cli -p "$port" SCRIPT LOAD "$floor_script")"
sha[script]="$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$private_dir/add_jobs.lua")")"

sha[script10k]="${sha[script]}"
names=(lua plain hset script script10k)
timestamp="$(date +%s%3N)"
for name in "${names[@]}"; do
  size="$page"
  [[ "$name" != script10k ]] || size=10000
  python3 "$root/bench/lib/bullmq_floor_commands.py" "${name%10k}" "$jobs" "$size" "$prefix" "$queue" "$timestamp" \
    "$private_dir/data.json" "${sha[$name]:-}" >"$private_dir/$name.resp"
done
log "$jobs jobs a case, commands written ($(du -sh "$private_dir" | cut -f1)); load $load_before on $cores cores; $runs rounds"

uptime_before="$(uptime_line)"
one() {  # NAME: one run into an empty server; appends "redis-CPU-s wall-s" to NAME's file
  local before after start end reply length hashes
  redis-cli -p "$port" FLUSHALL SYNC >/dev/null
  redis-cli -p "$port" CONFIG RESETSTAT >/dev/null
  before="$(cpu_ticks "$pid")"
  start="$(date +%s.%N)"
  reply="$(redis-cli -p "$port" --pipe <"$private_dir/$1.resp" 2>&1)"
  end="$(date +%s.%N)"
  after="$(cpu_ticks "$pid")"
  [[ "$reply" == *"errors: 0,"* ]] || fail "$1: $(tail -1 <<<"$reply")"
  length="$(redis-cli -p "$port" LLEN "$prefix:$queue:wait")"
  hashes="$(redis-cli -p "$port" DBSIZE)"
  [[ "$length" == "$jobs" ]] || fail "$1 left $length jobs in wait, expected $jobs"
  # The job hashes, and wait, events (not in hset), and id, meta, marker (only the script's).
  ((hashes >= jobs + 1 && hashes <= jobs + 6)) || fail "$1 left $hashes keys, expected $jobs job hashes and the queue's"
  awk -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" -v s="$start" -v e="$end" \
    'BEGIN { printf "%.2f %.3f\n", t / hz, e - s }' >>"$private_dir/$1.times"
  # Where the time went, by command (Redis times every command, a script's own calls too): µs a job.
  redis-cli -p "$port" INFO commandstats | tr -d '\r' | awk -F'[:=,]' -v n="$jobs" -v name="$1" '
    /^cmdstat_(evalsha|hset|xadd|lpush)/ { u[substr($1, 9)] = $5 }
    END { printf "%.2f %.2f %.2f %.2f\n", u["evalsha"] / n, u["hset"] / n, u["xadd"] / n, u["lpush"] / n }' \
    >>"$private_dir/$1.commands"
}
for ((round = 0; round < runs; round++)); do
  for ((i = 0; i < ${#names[@]}; i++)); do one "${names[$(((i + round) % ${#names[@]}))]}"; done
done
uptime_after="$(uptime_line)"
# The last run's job hash and events entries, as the results show them.
events_entry="$(redis-cli -p "$port" XREVRANGE "$prefix:$queue:events" + - COUNT 2 | paste -sd' ')"
encoding="$(redis-cli -p "$port" OBJECT ENCODING "$prefix:$queue:1")"

per_job() { awk -v s="$1" -v n="$jobs" 'BEGIN { printf "%.1f", s * 1e6 / n }'; }
row() {  # LABEL NAME
  local cpu
  cpu="$(column_median "$2" 1)"
  echo "| $1 | $cpu | $(per_job "$cpu") | $(column_median "$2" 2) | $(joined "$private_dir/$2.times") |"
}
split() {  # LABEL NAME: the median of each command's µs a job over the runs
  local column values=()
  for column in 1 2 3 4; do
    values+=("$(cut -d' ' -f"$column" "$private_dir/$2.commands" | median)")
  done
  echo "| $1 | ${values[0]} | ${values[1]} | ${values[2]} | ${values[3]} |"
}
{
  echo "# The floor under BullMQ jobs' rows/s: Redis's own CPU for 1M BullMQ jobs (issue 30)"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(uname -sr), $cores cores; $(redis-server --version | cut -d' ' -f1-3)."
  echo "Produced by \`bench/bullmq_floor.sh\`: a private redis-server (no persistence, default encodings), $jobs jobs"
  echo "a case in pages of $page, replayed by \`redis-cli --pipe\` from files written before the runs. A job's hash"
  echo "is rowpump's for sbtest1's rows (data 213 bytes, over hash-max-listpack-value: a hashtable, \`$encoding\`);"
  echo "the last run's events entries: \`$events_entry\`. $runs rounds, alternating; medians. Every run is checked"
  echo "to leave $jobs ids in \`wait\` and $jobs job hashes."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "| what Redis runs for $jobs jobs | Redis CPU s | µs a job | wall s | runs, Redis CPU s |"
  echo "|---|---|---|---|---|"
  row "(a) floor: 1 EVALSHA a page, per job only \`HSET\` (6 fields) + \`XADD\` added + \`XADD MAXLEN ~\` waiting, 1 \`LPUSH\` a page; arguments precomputed" lua
  row "(b) the same writes as pipelined plain commands" plain
  row "the job hashes alone: \`HSET\` a job, 1 \`LPUSH\` a page (no events entries)" hset
  row "(c) rowpump's own script (\`bullmq_scripts::add_jobs\`), 1 EVALSHA a page, rowpump's arguments" script
  row "(c) the same, one call a page of 10,000 (rowpump's default \`--page-size\`; rowpump now sends such a page as calls of 1,000)" script10k
  echo
  echo "Where it goes, from \`INFO commandstats\` over each run (Redis times every command it runs, a script's"
  echo "calls too; a script's time includes its calls'), medians, µs a job; the rest of a run's Redis CPU is"
  echo "reading and parsing the commands, replies and the event loop:"
  echo
  echo "| case | EVALSHA (the script, with its calls) | HSET | XADD (both) | LPUSH |"
  echo "|---|---|---|---|---|"
  split "(a) floor script" lua
  split "(b) plain commands" plain
  split "job hashes alone" hset
  split "(c) rowpump's script" script
  split "(c) rowpump's script, pages of 10,000" script10k
} >"$results"
log "results in $results"

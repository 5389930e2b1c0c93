#!/usr/bin/env bash
# Issue 28's linearity benchmark: does a backfill's cost stay linear in the table's size? The same narrow
# table (`id BIGINT` primary key, `v INT`) at 5M and at 20M rows, each to a file (--sink file:, NDJSON) and
# into a Redis list, default flags. Goal: 20M rows take at most 4.2x the time of 5M rows, to files and into
# Redis. Planning (`rowpump partition`'s "planned in N ms") is recorded for each size too.
#
# A warm-up run of each case (not counted: it also brings the table into the buffer pool), then BENCH_RUNS
# rounds, the order rotating each round; medians, and each run's wall so that the spread shows. Every run is
# checked: the file or the list must hold exactly the table's rows. Before each Redis run the list is deleted
# and the server runs MEMORY PURGE, so that no run finds the last one's freed pages still resident
# (results/redis_setups.md, "page faults"). Per run (bench/lib/measure.sh): wall seconds, the client's
# user+sys CPU and peak RSS (GNU time), the MariaDB and Redis servers' CPU (/proc/PID/stat).
#
#   eval "$(scripts/services.sh env)"
#   flock BUILD_LOCK bench/linearity.sh                        # 5M and 20M rows: about 5 minutes
#   BENCH_SMALL=1 BENCH_RUNS=1 bench/linearity.sh              # 50k and 200k rows: a check
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), BENCH_RUNS
# (3), BENCH_SMALL (0; 1: 50k and 200k rows, results under /tmp unless BENCH_RESULTS says otherwise),
# BENCH_KEEP_TABLES (0; 1: keep rp_bench_narrow_* for the next run, which then skips the 2 minutes of
# INSERTs), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS (bench/results/linearity.md),
# BENCH_MARIADB_PID and BENCH_REDIS_PID. Everything it creates is named rp_bench_* and removed at the end.
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
runs="$(setting BENCH_RUNS 3 count)"
small="$(setting BENCH_SMALL 0 '^[01]$' "0 or 1")"
keep_tables="$(setting BENCH_KEEP_TABLES 0 '^[01]$' "0 or 1")"
if ((small)); then sizes=(50000 200000); else sizes=(5000000 20000000); fi
results_file linearity "$((small ? sizes[0] : 0))"
queue="rp_bench_linearity_$$"

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli

refuse_when_loaded "$cores"
connect_servers rp_bench_linearity
measure_setup

cleanup() {
  local status=$? size
  trap - EXIT
  redis UNLINK "$queue" >/dev/null 2>&1 || true
  if ((keep_tables == 0)); then
    for size in "${sizes[@]}"; do sql "DROP TABLE IF EXISTS rp_bench_narrow_$size" 2>/dev/null || true; done
  fi
  rm -rf "$private_dir"
  exit "$status"
}
clean_up_on_exit cleanup

# The tables: made once (kept with BENCH_KEEP_TABLES=1), and checked to hold their rows.
for size in "${sizes[@]}"; do
  name="rp_bench_narrow_$size"
  if [[ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '$name'")" == 0 ]]; then
    log "making $name ($size rows)"
    sql "CREATE TABLE $name (id BIGINT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
         INSERT INTO $name SELECT seq, seq FROM seq_1_to_$size; ANALYZE TABLE $name" >/dev/null
  fi
  [[ "$(sql "SELECT COUNT(*) FROM $name")" == "$size" ]] || fail "$name does not hold $size rows: drop it and run again"
done
settle_innodb

# Case names: file_SIZE and redis_SIZE.
run() {
  local kind="${1%%_*}" size="${1#*_}" count
  local table="rp_bench_narrow_$size"
  case "$kind" in
    file)
      rm -f "$private_dir/out.ndjson"
      measure "$1" "$size" "$rowpump_bin" -q backfill --table "$table" --sink "file:$private_dir/out.ndjson"
      count="$(wc -l <"$private_dir/out.ndjson")"
      rm -f "$private_dir/out.ndjson" ;;
    redis)
      redis UNLINK "$queue" >/dev/null
      redis MEMORY PURGE >/dev/null
      measure "$1" "$size" "$rowpump_bin" -q backfill --table "$table" --sink "$redis_sink" --queue "$queue"
      count="$(redis LLEN "$queue")"
      redis UNLINK "$queue" >/dev/null ;;
  esac
  [[ "$count" == "$size" ]] || fail "$1 wrote $count rows, expected $size"
  # Planning, read off `rowpump partition` (the planner a backfill runs) after each run.
  "$rowpump_bin" partition --table "$table" --partitions "$cores" | sed -n 's/.*planned in \([0-9]*\) ms.*/\1/p' \
    >>"$private_dir/$1.plan_ms"
}

names=()
for size in "${sizes[@]}"; do names+=("file_$size" "redis_$size"); done
log "${sizes[*]} rows; cases ${names[*]}; $runs rounds; load $load_before on $cores cores"
rotating_rounds "" run run "${names[@]}"

# growth KIND: the median wall of the larger size over the smaller's.
growth() { awk -v a="$(median_of "${1}_${sizes[1]}" 1)" -v b="$(median_of "${1}_${sizes[0]}" 1)" 'BEGIN { printf "%.2f", a / b }'; }
spread() { cut -d' ' -f1 "$private_dir/$1.times" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[NR] / v[1] }'; }
plan_ms() { tail -n +2 "$private_dir/$1.plan_ms" | median; }
verdict() { awk -v g="$1" 'BEGIN { print (g <= 4.2) ? "met" : "**not met**" }'; }  # both size pairs are 1:4

mkdir -p "$(dirname "$results")"
{
  echo "# Linear in the table's size: ${sizes[0]} against ${sizes[1]} rows (issue 28)"
  echo
  build_line
  echo "$(servers_line). Produced by \`bench/linearity.sh\`; servers and client on the same machine."
  ((small == 0)) || echo "**Small mode** (BENCH_SMALL=1): not the issue's sizes."
  echo
  echo "Load (uptime) before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo
  echo "\`rp_bench_narrow_N\`: \`id BIGINT\` primary key, \`v INT\`, ids 1..N. \`rowpump backfill\` with default flags"
  echo "to \`--sink file:PATH\` (NDJSON) and into a Redis list. A warm-up run of each case, then $runs round(s), the order"
  echo "rotating each round; medians. Every run is checked to leave exactly N lines or N list items. Client CPU ="
  echo "user+sys (GNU time); MariaDB and Redis CPU = utime+stime of each server's /proc/PID/stat over the run;"
  echo "floor = (client + MariaDB + Redis CPU) / $cores cores. Spread: the slowest run's wall over the fastest's."
  echo
  echo "| case | rows | wall s | rows/s | client CPU s | MariaDB CPU s | Redis CPU s | floor s | peak RSS MB | runs, wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for name in "${names[@]}"; do measured_row "\`$name\`" "$name"; done
  echo
  echo "| case | spread of the runs | planning ms, median |"
  echo "|---|---|---|"
  for name in "${names[@]}"; do echo "| \`$name\` | $(spread "$name")x | $(plan_ms "$name") |"; done
  echo
  echo "## Goal (issue 28)"
  echo
  echo "| goal | measured | |"
  echo "|---|---|---|"
  echo "| ${sizes[1]} rows to files in at most 4.2x the time of ${sizes[0]} | $(growth file)x | $(verdict "$(growth file)") |"
  echo "| ${sizes[1]} rows into Redis in at most 4.2x the time of ${sizes[0]} | $(growth redis)x | $(verdict "$(growth redis)") |"
} >"$results"
cat "$results"
log "results in $results: files $(growth file)x, Redis $(growth redis)x"

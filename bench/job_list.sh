#!/usr/bin/env bash
# What `rowpump job list` costs on a store of many jobs (issue 29: under 1 s for 1,000 jobs). BENCH_JOBS jobs
# of BENCH_RANGES ranges each are written straight into each store (the layout rowpump's job stores write:
# Redis hashes under the state prefix rp_bench_jobs:, rows of rowpump_jobs / rowpump_job_ranges with ids
# rp_bench_jobs_*), then `rowpump job list` (and `--json`) is timed BENCH_RUNS times on each, with the
# client's and each server's CPU (bench/lib/measure.sh). Prints a markdown report to stdout; the jobs are
# removed at the end.
#
#   flock /tmp/rowpump-build.lock bash bench/job_list.sh   # (redirect it into a file under bench/results)
#
# Environment: ROWPUMP_MYSQL_URL, ROWPUMP_REDIS_URL, ROWPUMP_BIN (build/rowpump), BENCH_JOBS (1000),
# BENCH_RANGES (8), BENCH_RUNS (5).
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
jobs="$(setting BENCH_JOBS 1000 count)"
ranges="$(setting BENCH_RANGES 8 count)"
runs="$(setting BENCH_RUNS 5 count)"
require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools redis-cli mariadb
connect_servers rp_bench_job_list
measure_setup

prefix="rp_bench_jobs:"
cleanup() {
  status=$?
  trap - EXIT
  redis --scan --pattern "${prefix}*" | awk '{ print "DEL " $0 }' | redis --pipe >/dev/null || true
  sql "DELETE FROM rowpump_job_ranges WHERE job_id LIKE 'rp\\_bench\\_jobs\\_%';
       DELETE FROM rowpump_jobs WHERE job_id LIKE 'rp\\_bench\\_jobs\\_%'" 2>/dev/null || true
  rm -rf "$private_dir"
  exit "$status"
}
clean_up_on_exit cleanup

log "writing $jobs jobs of $ranges ranges into Redis and MariaDB"
# Half the jobs finished, half stopped half way; each range of 10,000 rows, keys as the key codec writes them.
awk -v jobs="$jobs" -v ranges="$ranges" -v prefix="$prefix" 'BEGIN {
  for (j = 0; j < jobs; ++j) {
    id = "rp_bench_jobs_" j
    printf "HSET %s%s:meta fingerprint 0123456789abcdef definition \"table `bench`.`t` key (`id`) columns (`id`) -> redis queue q (json)\" ranges %d\n", prefix, id, ranges
    for (r = 0; r < ranges; ++r) {
      done = (j % 2 == 0) ? "done" : "pending"
      written = (j % 2 == 0) ? 10000 : 5000
      # Keys as the key codec writes them (["10000"]), single-quoted for redis-cli: \047 is a quote.
      printf "HSET %s%s:range:%d lo \047[\"%d\"]\047 hi \047[\"%d\"]\047 last_key \047[\"%d\"]\047 rows_written %d estimated_rows 10000 status %s owner 0 lease_until 0 written_at 1764800000000\n", prefix, id, r, r * 10000, (r + 1) * 10000, r * 10000 + written, written, done
    }
  }
}' | redis --pipe >/dev/null

sql "CREATE TABLE IF NOT EXISTS rowpump_jobs (job_id VARBINARY(191) NOT NULL PRIMARY KEY, fingerprint CHAR(16) NOT NULL,
       definition TEXT NOT NULL, ranges INT NOT NULL, created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))
       ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
     CREATE TABLE IF NOT EXISTS rowpump_job_ranges (job_id VARBINARY(191) NOT NULL, range_no INT UNSIGNED NOT NULL,
       lo BLOB NULL, hi BLOB NULL, last_key BLOB NULL, estimated_rows BIGINT UNSIGNED NOT NULL DEFAULT 0,
       rows_written BIGINT UNSIGNED NOT NULL DEFAULT 0, status ENUM('pending','done') NOT NULL DEFAULT 'pending',
       owner BIGINT UNSIGNED NOT NULL DEFAULT 0, lease_until DATETIME(6) NULL, written_at DATETIME(6) NULL,
       PRIMARY KEY (job_id, range_no)) ENGINE=InnoDB;
     INSERT INTO rowpump_jobs (job_id, fingerprint, definition, ranges)
       SELECT CONCAT('rp_bench_jobs_', seq), '0123456789abcdef', 'table \`bench\`.\`t\` key (\`id\`) -> mysql queue q (json)', $ranges
       FROM seq_0_to_$((jobs - 1));
     INSERT INTO rowpump_job_ranges (job_id, range_no, lo, hi, last_key, estimated_rows, rows_written, status, written_at)
       SELECT CONCAT('rp_bench_jobs_', j.seq), r.seq, CONCAT('[\"', r.seq * 10000, '\"]'), CONCAT('[\"', (r.seq + 1) * 10000, '\"]'),
         CONCAT('[\"', r.seq * 10000 + 5000, '\"]'), 10000, IF(j.seq % 2, 5000, 10000), IF(j.seq % 2, 'pending', 'done'), NOW(6)
       FROM seq_0_to_$((jobs - 1)) j JOIN seq_0_to_$((ranges - 1)) r"

redis_jobs="$(redis --scan --pattern "${prefix}*:meta" | wc -l)"
[[ "$redis_jobs" -ge "$jobs" ]] || fail "only $redis_jobs jobs in Redis"
# The listing must show every job: counted in its JSON before it is timed.
listed() { "$rowpump_bin" job list "$@" --json | grep -c '"job_id": "rp_bench_jobs_' || true; }
[[ "$(listed --sink "$redis_sink" --state-prefix "$prefix")" == "$jobs" ]] || fail "job list on Redis does not show $jobs jobs"
[[ "$(listed --sink "$mysql_sink")" -ge "$jobs" ]] || fail "job list on MariaDB does not show $jobs jobs"

run_list() {
  case "$1" in
    redis) measure redis "$jobs" "$rowpump_bin" job list --sink "$redis_sink" --state-prefix "$prefix" ;;
    redis_json) measure redis_json "$jobs" "$rowpump_bin" job list --sink "$redis_sink" --state-prefix "$prefix" --json ;;
    mysql) measure mysql "$jobs" "$rowpump_bin" job list --sink "$mysql_sink" ;;
    mysql_json) measure mysql_json "$jobs" "$rowpump_bin" job list --sink "$mysql_sink" --json ;;
  esac
}
rotating_rounds "" run_list run_list redis redis_json mysql mysql_json

echo "# rowpump job list on $jobs jobs"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$root" rev-parse --short HEAD), $cores cores; load: $(uptime_line)."
echo "$jobs jobs of $ranges ranges each (half finished, half stopped), written straight into each store;"
echo "\`bench/job_list.sh\`, medians of $runs runs after a warm-up run. The goal: under 1 s."
echo
echo "| store | command | wall s | client CPU s | MariaDB CPU s | Redis CPU s |"
echo "| --- | --- | --- | --- | --- | --- |"
row() { echo "| $1 | \`$2\` | $(column_median "$3" 1) | $(column_median "$3" 3) | $(column_median "$3" 4) | $(column_median "$3" 5) |"; }
row Redis "job list" redis
row Redis "job list --json" redis_json
row MariaDB "job list" mysql
row MariaDB "job list --json" mysql_json

#!/usr/bin/env bash
# Issue 27's benchmark: draining a Redis queue of no-op tasks. `rowpump queue consume --pipe` with a
# persistent PHP and a persistent Python handler (bench/peers/noop_handler.*, --concurrency 2), against a
# real Sidekiq (-c 10) running a no-op job and a real Celery worker running a no-op task, with its thread
# pool (--pool threads -c 10) and with its default prefork pool (a process per core), on the same machine and
# the same Redis. Goals: rowpump with PHP at least 50,000 tasks/s and 2x Sidekiq; with Python at least 2x
# the faster Celery. Beside them, the same PHP handler on a MySQL queue table (goal
# 10,000 tasks/s, claim and ack), `--exec true` on EXEC_TASKS tasks (a process per task; reported), and
# the consumer's RSS draining RSS_TASKS (1,000,000) tasks against draining TASKS (goal: under 50 MB, flat).
#
# Each round fills the queue with the first TASKS rows of sbtest1, written by `rowpump backfill` in each
# worker's own format (not measured), then measures the drain, from the worker's start to its last task:
# rowpump exits at once (--until-empty); Sidekiq and Celery count their tasks in memory and set a Redis key
# at the last one (bench/peers/run_until_done.sh then stops them). Their start-up is part of the figure, so
# it is also measured alone, on a queue of one task, and the table gives tasks/s both with and without it.
# Per run (bench/lib/measure.sh): wall seconds, the consumer's CPU (its handlers and workers too) and the
# Redis server's CPU. Order alternates each round; medians.
#
#   eval "$(scripts/services.sh env)"
#   ROWPUMP_BIN=build/rowpump bench/consumer_vs_peers.sh
#   TASKS=20000 BENCH_RUNS=1 ROWPUMP_BIN=build/rowpump bench/consumer_vs_peers.sh   # a quick check
#
# Environment: ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (required), ROWPUMP_BIN (build/rowpump), TASKS
# (100000), EXEC_TASKS (2000), RSS_TASKS (1000000; 0: no RSS run), BENCH_RUNS (3), BENCH_QUEUE_DB (12: Sidekiq's and Celery's fixed key names stay out of the
# queue's own database), BENCH_MAX_LOAD (nproc), BENCH_FORCE (0), BENCH_RESULTS
# (bench/results/consumer_vs_peers.md). Needs php, python3-celery and ruby-sidekiq (scripts/setup.sh).
set -euo pipefail

# shellcheck source=bench/lib/measure.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/measure.sh"
runs="$(setting BENCH_RUNS 3 count)"
tasks="$(setting TASKS 100000 count)"
queue_db="$(setting BENCH_QUEUE_DB 12 whole)"
exec_tasks="$(setting EXEC_TASKS 2000 count)"
rss_tasks="$(setting RSS_TASKS 1000000 whole)"
results_file consumer_vs_peers 0
queue="rp_bench_consume_$$"
done_key="rp_bench_consume_done_$$"
mysql_queue="rp_bench_consume_q_$$"
small_table=rp_bench_sbtest_small
peers="$root/bench/peers"

require_env ROWPUMP_MYSQL_URL
require_env ROWPUMP_REDIS_URL
require_rowpump "$rowpump_bin"
require_tools mariadb redis-cli php /usr/bin/python3 sidekiq celery

refuse_when_loaded "$cores"
connect_servers rp_bench_consume default-character-set=utf8mb4
use_redis_db "$queue_db"
queue_url="$redis_db_url"
measure_setup

cleanup() {
  local status=$?
  trap - EXIT
  redis UNLINK "$queue" "queue:$queue" "$done_key" "$done_key:count" >/dev/null 2>&1 || true
  sql "DROP TABLE IF EXISTS \`$small_table\`, \`$mysql_queue\`" 2>/dev/null || true
  rm -rf "$private_dir"
  exit "$status"
}
clean_up_on_exit cleanup

sbtest_table "$tasks"
log "$tasks tasks from $db_name.$table, queue $queue in $queue_url; load $load_before on $cores cores; $runs rounds"

# fill NAME [LIMIT [TABLE]]: the queue in NAME's format, with TABLE's ($table's) first LIMIT rows (all
# when empty).
fill() {
  local where=() format=(--format template --template '{id}') sink="$queue_url" name="$queue"
  [[ -z "${2:-}" ]] || where=(--where "id <= $2")
  case "$1" in
    sidekiq) format=(--format sidekiq --job-class RowpumpBench::NoopJob) ;;
    celery | celery_prefork) format=(--format celery --task rowpump_bench.noop) ;;
    mysql) sink="$mysql_sink" name="$mysql_queue"; sql "DROP TABLE IF EXISTS \`$mysql_queue\`" ;;
  esac
  redis UNLINK "$queue" "queue:$queue" "$done_key" "$done_key:count" >/dev/null
  "$rowpump_bin" -q backfill --table "${3:-$table}" "${where[@]}" --sink "$sink" --queue "$name" "${format[@]}"
}

# drain NAME TIMES_NAME COUNT: measures NAME draining the queue of COUNT tasks.
drain() {
  local redis_args=(-h "$redis_host" -p "$redis_port" -n "$queue_db")
  case "$1" in
    php | python)
      local handler="php $peers/noop_handler.php"
      [[ "$1" == php ]] || handler="/usr/bin/python3 $peers/noop_handler.py"
      measure "$2" "$3" "$rowpump_bin" -q queue consume --source "$queue_url" --queue "$queue" --pipe "$handler" \
        --concurrency 2 --until-empty ;;
    mysql)
      measure "$2" "$3" "$rowpump_bin" -q queue consume --source "$mysql_sink" --queue "$mysql_queue" \
        --pipe "php $peers/noop_handler.php" --concurrency 2 --until-empty
      local rows_left
      rows_left="$(sql "SELECT COUNT(*) FROM \`$mysql_queue\` WHERE status <> 'done'")"
      [[ "$rows_left" == 0 ]] || fail "the MySQL queue table kept $rows_left tasks not done"
      return ;;
    exec)
      measure "$2" "$3" "$rowpump_bin" -q queue consume --source "$queue_url" --queue "$queue" --exec true \
        --concurrency 2 --until-empty ;;
    sidekiq)
      BENCH_TASKS="$3" BENCH_DONE_KEY="$done_key" REDIS_URL="$queue_url" \
        measure "$2" "$3" "$peers/run_until_done.sh" "${redis_args[@]}" -- \
        sidekiq -r "$peers/noop_sidekiq_job.rb" -q "$queue" -c 10 -t 1 ;;
    celery)
      BENCH_TASKS="$3" BENCH_DONE_KEY="$done_key" BENCH_BROKER="$queue_url" PYTHONPATH="$peers" PATH="/usr/bin:$PATH" \
        measure "$2" "$3" "$peers/run_until_done.sh" "${redis_args[@]}" -- \
        celery -A noop_celery_tasks worker --pool threads -c 10 -Q "$queue" --without-heartbeat --without-mingle \
        --without-gossip --loglevel WARNING ;;
    celery_prefork)
      BENCH_COUNT=redis BENCH_TASKS="$3" BENCH_DONE_KEY="$done_key" BENCH_BROKER="$queue_url" PYTHONPATH="$peers" \
        PATH="/usr/bin:$PATH" measure "$2" "$3" "$peers/run_until_done.sh" "${redis_args[@]}" -- \
        celery -A noop_celery_tasks worker --pool prefork -c "$cores" -Q "$queue" --without-heartbeat \
        --without-mingle --without-gossip --loglevel WARNING ;;
  esac
  local left
  left="$(redis LLEN "$queue")$(redis LLEN "queue:$queue")"
  [[ "$left" == 00 ]] || fail "$1 left tasks in the queue ($left)"
}

count_of() { if [[ "$1" == exec ]]; then echo "$exec_tasks"; else echo "$tasks"; fi; }
run() {
  if [[ "$1" == exec ]]; then fill exec "$exec_tasks"; else fill "$1"; fi
  drain "$1" "$1" "$(count_of "$1")"
}
start_up() { fill "$1" 1; drain "$1" "$1.start" 1; }
# A counted round runs each worker on the full queue, then alone on one task (its start-up).
run_and_start_up() { run "$1"; start_up "$1"; }

names=(php python sidekiq celery celery_prefork mysql exec)
rotating_rounds "" run run_and_start_up "${names[@]}"
if ((rss_tasks > 0)); then
  log "RSS: php draining $rss_tasks tasks of sbtest1"
  fill php "$rss_tasks" sbtest1
  drain php rss "$rss_tasks"
  log "RSS: $(cut -d' ' -f2 "$private_dir/rss.times") KB at $rss_tasks tasks, $(column_median php 2) KB at $tasks"
fi
uptime_after="$(uptime_line)"

# tasks/s of NAME's median run, after its median start-up when one is given; "-" when the start-up is
# not shorter than the run (rowpump's one-task run is its end-of-queue check, not a start-up to subtract).
per_s() {
  awk -v n="$(count_of "$1")" -v w="$(column_median "$1" 1)" -v s="${2:-0}" \
    'BEGIN { if (w - s <= 0.05 * w) print "-"; else printf "%.0f", n / (w - s) }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() {  # LABEL NAME
  local start
  start="$(column_median "$2.start" 1)"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$(column_median "$2" 1)" "$(column_median "$2" 3)" \
    "$(column_median "$2" 4)" "$(column_median "$2" 5)" "$start" "$(per_s "$2")" "$(per_s "$2" "$start")" "$(joined "$private_dir/$2.times")"
}
php_rate="$(per_s php)"
{
  echo "# Draining a queue of no-op tasks: rowpump --pipe against Sidekiq and Celery"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $tasks tasks; medians of $runs rounds, order alternating; $cores cores,"
  echo "load before: $load_before; after: $uptime_after."
  echo
  echo "| consumer | wall s | consumer CPU s | MariaDB CPU s | Redis CPU s | start-up s (one task) | tasks/s | tasks/s after start-up | wall of each run |"
  echo "|---|---|---|---|---|---|---|---|---|"
  row "rowpump --pipe, PHP handler, --concurrency 2" php
  row "rowpump --pipe, Python handler, --concurrency 2" python
  row "Sidekiq $(sidekiq --version 2>/dev/null | head -n1 | awk '{print $2}'), -c 10, no-op job" sidekiq
  row "Celery $(PATH="/usr/bin:$PATH" celery --version 2>/dev/null | awk '{print $1}'), --pool threads -c 10, no-op task" celery
  row "Celery, --pool prefork -c $cores, no-op task (counted with one INCR per task)" celery_prefork
  row "rowpump --pipe, PHP handler, MySQL queue table, --concurrency 2" mysql
  row "rowpump --exec true ($exec_tasks tasks, a process each), --concurrency 2" exec
  echo
  if ((rss_tasks > 0)); then
    echo "- Consumer RSS (rowpump with the PHP handler, max RSS from GNU time: its largest process, rowpump or a handler): $(cut -d' ' -f2 "$private_dir/rss.times") KB draining $rss_tasks tasks, $(column_median php 2) KB draining $tasks (goal: under 50 MB, flat); the $rss_tasks took $(cut -d' ' -f1 "$private_dir/rss.times") s."
  fi
  echo "- rowpump on the MySQL queue table: $(per_s mysql) tasks/s (goal 10,000)."
  echo "- rowpump --exec true: $(per_s exec) tasks/s (a process per task)."
  echo "- rowpump with PHP: $php_rate tasks/s (goal 50,000); $(ratio "$php_rate" "$(per_s sidekiq)")x Sidekiq, $(ratio "$php_rate" "$(per_s sidekiq "$(column_median sidekiq.start 1)")")x after its start-up (goal 2x)."
  for pool in celery celery_prefork; do
    echo "- rowpump with Python: $(ratio "$(per_s python)" "$(per_s $pool)")x Celery ($pool), $(ratio "$(per_s python)" "$(per_s $pool "$(column_median $pool.start 1)")")x after its start-up (goal 2x the faster pool)."
  done
} >"$results"
cat "$results"

# shellcheck shell=bash disable=SC2034  # (the globals set here are for the sourcing scripts)
# The set-up the benches of Sidekiq-shaped jobs share (sidekiq_vs_push_bulk.sh, activejob_vs_perform_later.sh):
# the results file, the queue and its job class, the Ruby libraries the peer needs, both servers (Redis in
# Sidekiq's own database, BENCH_SIDEKIQ_DB, so that Sidekiq's fixed key names stay out of the queue's), the
# peer's environment, the clean-up at exit, the table (sbtest1 or its small copy) and a warm buffer pool.
# Sourced after lib/common.sh and lib/measure.sh, with $runs, $small_rows and $sidekiq_db set.
#
#   sidekiq_jobs_setup NAME RUBY_CHECK HINT
#     NAME         names the results file (results_file NAME); its first word names the queue (rp_bench_WORD_PID)
#     RUBY_CHECK   Ruby code that loads what the peer needs
#     HINT         what to install when it does not load

sidekiq_jobs_setup() {
  local name="$1" ruby_check="$2" hint="$3"
  results_file "$name" "$small_rows"
  job_class=RowpumpBench::RowJob
  queue="rp_bench_${name%%_*}_$$"

  require_env ROWPUMP_MYSQL_URL
  require_env ROWPUMP_REDIS_URL
  require_rowpump "$rowpump_bin"
  require_tools mariadb redis-cli ruby
  ruby -e "$ruby_check" 2>/dev/null || { log "$hint"; exit 2; }

  refuse_when_loaded "$cores"
  connect_servers "rp_bench_${name%%_*}" default-character-set=utf8mb4
  use_redis_db "$sidekiq_db"
  sidekiq_sink="$redis_db_url"
  measure_setup
  export BENCH_MYSQL_OPTION_FILE="$client_config" BENCH_MYSQL_DATABASE="$db_name" BENCH_REDIS_URL="$sidekiq_sink"
  [[ -z "$redis_auth" ]] || export BENCH_REDIS_PASSWORD="$redis_auth"

  use_sbtest_table sidekiq_jobs_clear
  log "$rows rows of $db_name.$table into $sidekiq_sink queue:$queue; load $load_before on $cores cores; $runs rounds"
  warm_buffer_pool
}

# sidekiq_jobs_run NAME FORMAT PEER: one measured run into an empty queue, of `rowpump backfill --format FORMAT`
# when NAME is rowpump, else of bench/peers/PEER (Ruby; it reads the table and enqueues, as its arguments say);
# the caller's check_jobs NAME then checks what it left.
sidekiq_jobs_run() {
  local name="$1" format="$2" peer="$3"
  redis UNLINK "queue:$queue" >/dev/null
  if [[ "$name" == rowpump ]]; then
    measure "$name" "$rows" "$rowpump_bin" -q backfill --table "$table" --sink "$sidekiq_sink" --queue "$queue" \
      --format "$format" --job-class "$job_class"
  else
    measure "$name" "$rows" ruby "$root/bench/peers/$peer" "$table" "$queue" "$job_class"
  fi
  check_jobs "$name"
  redis UNLINK "queue:$queue" >/dev/null
}

sidekiq_jobs_clear() {
  redis UNLINK "queue:$queue"
  redis SREM queues "$queue"
}

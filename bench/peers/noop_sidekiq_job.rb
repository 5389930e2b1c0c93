# Sidekiq's side of bench/consumer_vs_peers.sh: a job that does nothing. The worker counts its jobs in
# memory and, at the BENCH_TASKS-th, sets the Redis key BENCH_DONE_KEY once: no Redis call per job beyond
# Sidekiq's own.
require "sidekiq"

module RowpumpBench
  class NoopJob
    include Sidekiq::Worker
    sidekiq_options retry: false
    @count = 0
    @lock = Mutex.new
    class << self
      def done_one
        finished = @lock.synchronize { (@count += 1) == Integer(ENV.fetch("BENCH_TASKS")) }
        Sidekiq.redis { |redis| redis.set(ENV.fetch("BENCH_DONE_KEY"), "1") } if finished
      end
    end

    def perform(*)
      self.class.done_one
    end
  end
end

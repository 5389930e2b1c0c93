# A Sidekiq job class for rowpump's tests. Each run appends the job it ran (its whole hash, as the
# server middleware sees it) and the time it ran to the Redis list named by RP_RECORD_KEY, so a test
# sees every run of every job. Started by tests/integration/worker_formats_test.cpp.
require "json"
require "sidekiq"

# Sidekiq 6.4's poller first waits 10-15 s, then polls `schedule` every average_scheduled_poll_interval
# seconds (5), times the number of processes. Setting the average itself skips the 10 s and polls about
# every 0.5-1.5 s: a test of scheduled jobs takes seconds instead of twenty.
Sidekiq.options[:poll_interval_average] = Float(ENV.fetch("RP_POLL_SECONDS", "1"))

module RowpumpTest
  # perform sees only the arguments; this hands it the job's hash.
  class JobHash
    def call(_worker, job, _queue)
      Thread.current[:rowpump_test_job] = job
      yield
    ensure
      Thread.current[:rowpump_test_job] = nil
    end
  end

  class Recorder
    include Sidekiq::Worker

    def perform(row)
      record = {"job" => Thread.current[:rowpump_test_job], "row" => row, "ran_at" => Time.now.to_f}
      Sidekiq.redis { |conn| conn.rpush(ENV.fetch("RP_RECORD_KEY"), JSON.generate(record)) }
    end
  end

  # Records its run as Recorder does, then fails: what Sidekiq does next is the job's "retry" and "dead".
  class Failer < Recorder
    def perform(row)
      super
      raise "rowpump test failure"
    end
  end
end

Sidekiq.configure_server do |config|
  config.server_middleware { |chain| chain.add RowpumpTest::JobHash }
end

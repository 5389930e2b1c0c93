# What the Sidekiq recorders share (sidekiq_recorder.rb, activejob_recorder.rb): a short poll of
# `schedule`, a server middleware that hands perform the job's whole hash, and the list each run is
# recorded in (RP_RECORD_KEY).
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

  # The Sidekiq job's hash of the job that is running.
  def self.current_job
    Thread.current[:rowpump_test_job]
  end

  # Appends `record` as JSON to the list the test reads.
  def self.record(record)
    Sidekiq.redis { |conn| conn.rpush(ENV.fetch("RP_RECORD_KEY"), JSON.generate(record)) }
  end
end

Sidekiq.configure_server do |config|
  config.server_middleware { |chain| chain.add RowpumpTest::JobHash }
end

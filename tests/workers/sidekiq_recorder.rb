# A Sidekiq job class for rowpump's tests. Each run appends the job it ran (its whole hash, as the
# server middleware sees it) and the time it ran to the Redis list named by RP_RECORD_KEY, so a test
# sees every run of every job. Started by tests/integration/worker_formats_test.cpp.
require_relative "sidekiq_test_server"

module RowpumpTest
  class Recorder
    include Sidekiq::Worker

    def perform(row)
      RowpumpTest.record("job" => RowpumpTest.current_job, "row" => row, "ran_at" => Time.now.to_f)
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

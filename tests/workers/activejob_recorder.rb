# An ActiveJob job class for rowpump's tests, run by a real `sidekiq` process through ActiveJob's Sidekiq
# adapter (the JobWrapper). Each perform appends what it received to the Redis list named by RP_RECORD_KEY:
# the Sidekiq job's hash, the ActiveJob attributes, each argument value in a plain JSON form beside its
# Ruby class, and the time it ran. Started by tests/integration/activejob_worker_test.cpp.
require "json"
require "time"
require "bigdecimal"
require "active_job"
require "sidekiq"

ActiveJob::Base.queue_adapter = :sidekiq
ActiveJob::Base.logger = Logger.new(nil)

# As in sidekiq_recorder.rb: poll `schedule` about every RP_POLL_SECONDS instead of after 10-15 s.
Sidekiq.options[:poll_interval_average] = Float(ENV.fetch("RP_POLL_SECONDS", "1"))

# Rails 7.1 ships this serializer (active_job/serializers/big_decimal_serializer.rb); 6.1 and 7.0 write a
# BigDecimal as a JSON string. An app on those versions that wants BigDecimal arguments adds this class,
# as this test does: ActiveJob finds a serializer by its name (safe_constantize).
unless ActiveJob::Serializers.const_defined?(:BigDecimalSerializer)
  module ActiveJob
    module Serializers
      class BigDecimalSerializer < ObjectSerializer
        def serialize(big_decimal)
          super("value" => big_decimal.to_s)
        end

        def deserialize(hash)
          BigDecimal(hash["value"])
        end

        private

        def klass
          BigDecimal
        end
      end
    end
  end
end

module RowpumpTest
  # perform sees only the arguments; this hands it the Sidekiq job's hash.
  class JobHash
    def call(_worker, job, _queue)
      Thread.current[:rowpump_test_job] = job
      yield
    ensure
      Thread.current[:rowpump_test_job] = nil
    end
  end

  class ActiveRecorder < ActiveJob::Base
    def perform(row)
      values = row.transform_values { |value| plain(value) }
      classes = row.transform_values { |value| value.class.name }
      times = row.select { |_key, value| value.is_a?(Time) }.keys
      record = {"job" => Thread.current[:rowpump_test_job], "row" => values, "classes" => classes,
                "times" => times, "string_keys" => row.keys.all?(String), "job_id" => job_id,
                "queue_name" => queue_name, "executions" => executions, "ran_at" => Time.now.to_f}
      Sidekiq.redis { |conn| conn.rpush(ENV.fetch("RP_RECORD_KEY"), JSON.generate(record)) }
    end

    private

    # Values JSON carries unambiguously: a BigDecimal as its plain digits, times as UTC ISO 8601 to the
    # microsecond, dates as ISO 8601.
    def plain(value)
      case value
      when BigDecimal then value.to_s("F")
      when Time then value.utc.iso8601(6)
      when Date then value.iso8601
      else value
      end
    end
  end
end

Sidekiq.configure_server do |config|
  config.server_middleware { |chain| chain.add RowpumpTest::JobHash }
end

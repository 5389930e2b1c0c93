# An ActiveJob job class for rowpump's tests, run by a real `sidekiq` process through ActiveJob's Sidekiq
# adapter (the JobWrapper). Each perform appends what it received to the Redis list named by RP_RECORD_KEY:
# the Sidekiq job's hash, the ActiveJob attributes, each argument value in a plain JSON form beside its
# Ruby class, and the time it ran. Started by tests/integration/activejob_worker_test.cpp.
require "time"
require "bigdecimal"
require "active_job"
require_relative "sidekiq_test_server"

ActiveJob::Base.queue_adapter = :sidekiq
ActiveJob::Base.logger = Logger.new(nil)

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
  class ActiveRecorder < ActiveJob::Base
    def perform(row)
      values = row.transform_values { |value| plain(value) }
      classes = row.transform_values { |value| value.class.name }
      times = row.select { |_key, value| value.is_a?(Time) }.keys
      record = {"job" => RowpumpTest.current_job, "row" => values, "classes" => classes,
                "times" => times, "string_keys" => row.keys.all?(String), "job_id" => job_id,
                "queue_name" => queue_name, "executions" => executions, "ran_at" => Time.now.to_f}
      RowpumpTest.record(record)
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

// What ActiveJob (Rails 6.1+) enqueues through its Sidekiq adapter (queue_adapters/sidekiq_adapter.rb):
// Sidekiq::Client.push of
//
//   {"class" => JobWrapper, "wrapped" => C, "queue" => Q, "args" => [job.serialize]}
//
// which Sidekiq writes as its own job (sidekiq_envelope.cpp) with the class
// "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper" and "wrapped":"C"; its one argument is
// ActiveJob::Core#serialize, keys in its order:
//
//   {"job_class":"C","job_id":"<uuid4>","provider_job_id":null,"queue_name":"Q","priority":null,
//    "arguments":[ROW],"executions":0,"exception_executions":{},"locale":"en","timezone":"UTC",
//    "enqueued_at":"2026-01-02T03:04:05.123456000Z"}
//
// The JobWrapper's perform hands that hash to ActiveJob::Base.execute, which instantiates job_class.
// Differences, on purpose: enqueued_at carries the fraction that Rails 7.1+ writes (6.1 writes whole
// seconds; both read any ISO 8601 string); a delayed job also carries "scheduled_at", its due time in
// the same form, which Rails 7.1+ reads back and 6.1 ignores. locale and timezone are a Rails app's
// defaults ("en", "UTC"); ActiveJob runs the job in them (around_perform of its Timezones and
// Translation modules).
#include <cstdio>

#include "encode/encoders.hpp"
#include "encode/json_string.hpp"
#include "encode/task_envelope.hpp"
#include "encode/unique_ids.hpp"
#include "encode/utc_text.hpp"

namespace rowpump {

namespace {

constexpr std::string_view job_wrapper = "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper";

// Time#utc.iso8601(9) of a Unix time in microseconds, quoted: "2026-01-02T03:04:05.123456000Z".
void append_iso8601(std::int64_t unix_us, std::string& out) {
    out.push_back('"');
    const int micros = append_utc_seconds(unix_us, out);
    char fraction[16];
    const int length = std::snprintf(fraction, sizeof fraction, ".%06d000Z\"", micros);
    out.append(fraction, static_cast<std::size_t>(length));
}

class ActiveJobEnvelope final : public TaskEnvelope {
public:
    explicit ActiveJobEnvelope(const TaskSpec& task) : sidekiq_(make_sidekiq_envelope(task, job_wrapper)) {
        head_ = "{\"job_class\":";
        append_json_string(task.job_class, head_);
        head_ += ",\"job_id\":\"";
        queue_ = "\",\"provider_job_id\":null,\"queue_name\":";
        append_json_string(task.queue, queue_);
        queue_ += ",\"priority\":null,\"arguments\":[";
    }

    void wrap(std::string_view argument_json, const TaskTimes& times, std::string& out) const override {
        // One buffer per thread: wrap() is const and runs in several workers at once.
        thread_local std::string job;
        job.assign(head_);
        ids_.append_uuid4(job);
        job.append(queue_);
        job.append(argument_json);
        job.append("],\"executions\":0,\"exception_executions\":{},\"locale\":\"en\",\"timezone\":\"UTC\","
                   "\"enqueued_at\":");
        append_iso8601(times.now_us, job);
        if (times.due_ms > 0) {
            job.append(",\"scheduled_at\":", 16);
            append_iso8601(times.due_ms * 1000, job);
        }
        job.push_back('}');
        sidekiq_->wrap(job, times, out);
    }

private:
    std::unique_ptr<TaskEnvelope> sidekiq_;  // the Sidekiq job around the serialized ActiveJob
    std::string head_;                       // up to the job id
    std::string queue_;                      // from after the job id to the arguments
    UniqueIds ids_;
};

}  // namespace

std::unique_ptr<TaskEnvelope> make_activejob_envelope(const TaskSpec& task) {
    return std::make_unique<ActiveJobEnvelope>(task);
}

}  // namespace rowpump

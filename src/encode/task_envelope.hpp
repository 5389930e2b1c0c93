#pragma once
// The jobs of worker formats around an argument that is already JSON: what a Sidekiq or Celery client
// would write for a job with that one argument. The row encoders of those formats wrap the row's JSON;
// BulkEnqueuer wraps the JSON its caller pushes.
#include <memory>
#include <string>
#include <string_view>

#include "rowpump/encode.hpp"

namespace rowpump {

class TaskEnvelope {
public:
    virtual ~TaskEnvelope() = default;
    // Appends the job whose one argument is `argument_json`, with a fresh id, enqueued and due at `times`.
    virtual void wrap(std::string_view argument_json, const TaskTimes& times, std::string& out) const = 0;
    // Appends the call with the positional arguments `args_json` (a JSON array) and the keyword arguments
    // `kwargs_json` (a JSON object): only Celery has keyword arguments; the others throw.
    virtual void wrap_call(std::string_view args_json, std::string_view kwargs_json, const TaskTimes& times,
                           std::string& out) const;
};

// For Format::sidekiq, Format::activejob or Format::celery; `task` must pass check_task_spec.
std::unique_ptr<TaskEnvelope> make_task_envelope(Format format, const TaskSpec& task);

}  // namespace rowpump

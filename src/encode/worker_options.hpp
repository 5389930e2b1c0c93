#pragma once
// The worker options (--sidekiq-retry, --celery-kwargs, ...) read from their text, as the command line
// and the job file give them, into TaskSpec's typed options; and what the workers would refuse. Each
// read throws config::OptionError naming its option.
#include <string>
#include <vector>

#include "rowpump/encode.hpp"

namespace rowpump {

// "true" (Sidekiq's default), "false", or a retry count such as "0" or "5".
void read_sidekiq_retry(const std::string& text, SidekiqJobOptions& options);
// "true" (the default) or "false".
void read_sidekiq_dead(const std::string& text, SidekiqJobOptions& options);
// Each "K=V": one more key of the job; K must be none of the keys Sidekiq or the job writes itself.
void read_sidekiq_fields(const std::vector<std::string>& pairs, SidekiqJobOptions& options);

// "" (none given) or a priority 0..9, as kombu reads a message's properties.priority.
void read_celery_priority(const std::string& text, CeleryTaskOptions& options);

// Throws config::OptionError for a worker option given to a format that does not read it, a tag or kwargs
// column given twice or empty, a field key that clashes, a routing key with a space or control character.
void check_worker_options(Format format, const TaskSpec& task);

// The options that differ from their defaults, as words for a job's definition (" retry 0 tags a,b");
// empty at the defaults, so the definitions of jobs created before these options existed still match.
std::string worker_options_text(const TaskSpec& task);

}  // namespace rowpump

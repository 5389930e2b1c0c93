#pragma once
// What the MySQL queue backend opens for a sink spec; both connect with the spec's timeouts.
#include <memory>

#include "checkpoint/job_store.hpp"
#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_mysql_queue_sink(const SinkSpec& spec, MySqlOptions options);
std::unique_ptr<JobStore> open_mysql_job_store(const SinkSpec& sink, const JobDefinition& definition);

}  // namespace rowpump

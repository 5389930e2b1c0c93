#pragma once
// What the MySQL queue backend opens for a target; both connect with its options (the spec's timeouts).
#include <memory>

#include "checkpoint/job_store.hpp"
#include "backend/mysql_queue/mysql_queue_target.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_mysql_queue_sink(MySqlQueueTarget target);
std::unique_ptr<JobStore> open_mysql_job_store(MySqlQueueTarget target, const JobDefinition& definition);

}  // namespace rowpump

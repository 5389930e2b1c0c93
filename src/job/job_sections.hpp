#pragma once
// The sections of a job file, each read into its part of the JobSpec (schema: load_job.cpp).
#include "job/yaml_fields.hpp"
#include "rowpump/job.hpp"

namespace rowpump::job {

void read_source(const Field& source, JobSpec& spec);
void read_sink(const Field& sink, JobSpec& spec);
// sink.priority: the routing column and its levels, highest first.
void read_priority(const Field& priority, RouteSpec& route);
// throttle: replicas, lag and load limits, the pause file and the HTTP endpoint.
void read_throttle(const Field& throttle, ThrottleSpec& spec);

}  // namespace rowpump::job

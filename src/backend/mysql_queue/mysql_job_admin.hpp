#pragma once
// The jobs kept in one MySQL database's job tables, for `rowpump job`: a list is one SELECT over both
// tables, a removal one transaction that locks the job's rows first.
#include <memory>

#include "checkpoint/job_admin.hpp"
#include "rowpump/options.hpp"

namespace rowpump {

// Connects at once; creates nothing (a database without the job tables holds no jobs).
std::unique_ptr<JobAdmin> open_mysql_job_admin(const MySqlOptions& connection);

}  // namespace rowpump

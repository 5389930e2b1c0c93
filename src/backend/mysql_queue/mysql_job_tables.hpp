#pragma once
// The job store's two tables beside the queue table (rowpump_jobs, rowpump_job_ranges): the store and
// `rowpump job` read and write them.
#include "mysql/connection.hpp"

namespace rowpump::mysql {

// Creates both tables when missing, with every column; adds the columns a later version added to tables
// an earlier one created (written_at, the time of a range's last page).
void create_job_tables(Connection& connection);
// True when the database holds the job tables (`rowpump job` creates nothing); then their columns are
// brought up to date as create_job_tables does.
bool job_tables_ready(Connection& connection);

}  // namespace rowpump::mysql

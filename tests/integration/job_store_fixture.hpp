#pragma once
// What the job-store tests share: a job keyed by one BIGINT column `id`, and the clean-up of what such a
// job leaves in MySQL.
#include <string>
#include <utility>

#include "checkpoint/job_store.hpp"
#include "integration/mysql_fixture.hpp"

namespace rowpump::test {

inline JobDefinition id_keyed_job(std::string job_id) {
    JobDefinition definition;
    definition.job_id = std::move(job_id);
    definition.description = "a test job";
    definition.fingerprint = "0123456789abcdef";
    definition.key_columns = {Column{"id", "bigint(20)", ColumnKind::signed_integer}};
    return definition;
}

// Drops the queue table and deletes the job's rows from the job tables, where those exist.
inline void drop_mysql_job(TestTables& tables, const std::string& queue, const std::string& job_id) {
    auto& mysql = tables.connection();
    mysql.execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(queue));
    for (const char* table : {"rowpump_job_ranges", "rowpump_jobs"})
        if (!tables
                 .rows("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
                       {std::string(table)})
                 .empty())
            mysql.execute(std::string("DELETE FROM ") + table + " WHERE job_id = ?", {job_id});
}

}  // namespace rowpump::test

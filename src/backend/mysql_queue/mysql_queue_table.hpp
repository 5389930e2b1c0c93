#pragma once
// The MySQL queue table of docs/DESIGN.md ("Queues"). Its table and column names are a contract with consumers
// written in other languages (a PHP worker running the update-then-select SQL), so the producer (sink) and
// the consumer side create and check it through these functions only. The table lives in the database of
// the connection's URL.
#include <string>

namespace rowpump::mysql {

class Connection;

// Throws UsageError unless `table` can name a MySQL table: 1 to 64 characters, no NUL.
void validate_queue_table_name(const std::string& table);

// CREATE TABLE IF NOT EXISTS for the queue table `table` (InnoDB, utf8mb4).
std::string queue_table_ddl(const std::string& table);

// Creates the queue table when it does not exist yet; an existing table is left as it is (check it).
void create_queue_table(Connection& connection, const std::string& table);

// Reads information_schema and throws UsageError naming every column that is missing or has the wrong
// type, or when the table does not exist or is not InnoDB (claims need row locks and transactions):
// "queue table `q` has the wrong shape: column `status` is missing; choose another --queue or drop the
// table". Returns the name of the claim index, the one on (status, priority, available_at, ...); a
// missing one is only worth a warning (the queue works, slowly) and returns "".
std::string check_queue_table(Connection& connection, const std::string& table);

}  // namespace rowpump::mysql

#pragma once
// One snapshot for many readers, as mydumper takes it: a session locks the table against writes, every
// reader starts its consistent-snapshot transaction, and the lock is released. With no write to the
// table between the first START TRANSACTION and the last, all readers see the same table.
#include <string>
#include <vector>

#include "mysql/stream_connection.hpp"
#include "rowpump/options.hpp"

namespace rowpump::mysql {

// How long LOCK TABLES may wait (lock_wait_timeout) unless the session variables name their own. While it
// waits behind a long transaction that wrote to the table, new writers queue behind it: a short wait
// bounds that stall, and the run fails with a line that says why.
constexpr int snapshot_lock_wait_seconds = 5;

// Locks `quoted_table` (LOCK TABLES ... READ) on a control-plane session of `mysql`, starts a consistent
// snapshot on each of `readers`, and unlocks. Throws UsageError when the account lacks the LOCK TABLES
// privilege, Error when the lock is not granted in time; the readers are then unusable.
void start_snapshots_together(const MySqlOptions& mysql, const std::string& quoted_table,
                              const std::vector<StreamConnection*>& readers);

}  // namespace rowpump::mysql

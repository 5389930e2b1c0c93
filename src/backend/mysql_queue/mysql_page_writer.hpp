#pragma once
// The one way a page of messages enters the queue table, for the plain sink and for a job's ledger alike:
// one transaction of bulk INSERTs (mysql_queue_insert.hpp). A fenced write first moves the range's
// checkpoint in the same transaction and writes nothing when the fence has moved; the plain write is that
// without the fence.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/mysql_queue/mysql_queue_insert.hpp"
#include "mysql/connection.hpp"

namespace rowpump::mysql {

// What a fenced page commits with its rows: an UPDATE of the range's checkpoint that changes its one row
// only while the fence (owner, status, upper bound) holds.
struct CheckpointMove {
    std::string sql;
    std::vector<Param> params;
};

class PageWriter {
public:
    // `connection` outlives the writer; `priority_levels` as QueueInserter takes them.
    PageWriter(Connection& connection, const std::string& table, std::size_t priority_levels)
        : connection_(connection), table_(table), inserter_(connection, table, priority_levels) {}

    // In one transaction: `fence`'s checkpoint move, when given, then the batch's INSERTs. False, with
    // nothing written, when the move changed no row. Not retried: the caller's retrying() is, as it must
    // settle a COMMIT in doubt its own way.
    bool write(const std::vector<Message>& batch, const CheckpointMove* fence = nullptr);

    // The ready tasks waiting in the table.
    std::uint64_t ready_count();

private:
    Connection& connection_;
    std::string table_;
    QueueInserter inserter_;
};

}  // namespace rowpump::mysql

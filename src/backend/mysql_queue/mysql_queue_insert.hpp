#pragma once
// INSERTs of messages into the queue table, inside the caller's transaction: the plain sink commits them
// alone, a job's ledger commits them with the checkpoint that covers them. On a connection that offers
// array binding (a Connector/C session on MariaDB) one INSERT runs for all the rows of a chunk in bulk;
// otherwise, or when the server refuses bulk execution, they go in multi-row INSERTs.
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::mysql {

// Throws PayloadTooLarge for the first payload that cannot travel in a statement of at most `max_packet`
// bytes (the server's max_allowed_packet), naming its size and what to do.
void check_payload_sizes(const std::vector<Message>& batch, std::uint64_t max_packet);

class QueueInserter {
public:
    // `priority_levels`: how many priority lists the job routes to (0: none). Reads max_allowed_packet.
    QueueInserter(Connection& connection, std::string table, std::size_t priority_levels);

    // INSERTs the batch in chunks; the caller owns the transaction. Throws UsageError for a message whose
    // priority level has no list, and PayloadTooLarge, before anything is sent, for one the server would
    // refuse.
    void insert(const std::vector<Message>& batch);

private:
    std::int64_t priority_of(const Message& message) const;
    std::size_t insert_bulk(const std::vector<Message>& batch, std::size_t first);
    std::size_t insert_rows(const std::vector<Message>& batch, std::size_t first);
    std::size_t chunk_rows(const std::vector<Message>& batch, std::size_t first, std::size_t max_rows,
                           std::size_t row_overhead) const;
    // A chunk whose rows are all ready now is inserted with NOW(6) in the SQL and two values a row; one
    // with a due time among them carries the due time too (two more values and their conversion a row).
    enum class RowShape { ready, due };
    static RowShape shape_of(const std::vector<Message>& batch, std::size_t first, std::size_t rows);
    const std::string& insert_sql(RowShape shape, std::size_t rows);
    const std::vector<Param>& fill_params(RowShape shape, const std::vector<Message>& batch, std::size_t first,
                                          std::size_t rows);
    const std::vector<BulkColumn>& fill_columns(RowShape shape, const std::vector<Message>& batch,
                                                std::size_t first, std::size_t rows);
    // A due time as the INSERT takes it: milliseconds since 1970 up to 2038, microseconds after the
    // anchor past it; both 0 for a message that is ready now.
    struct DueValues {
        std::int64_t ms_before_2038;
        std::int64_t us_after_anchor;
    };
    static DueValues due_values(const Message& message);

    Connection& connection_;
    std::string table_;
    std::size_t levels_;
    std::uint64_t max_packet_ = 0;
    std::size_t max_chunk_bytes_ = 0;
    std::vector<std::string> insert_sql_;       // by shape, then log2(rows)
    std::vector<std::vector<Param>> params_;   // by shape, then log2(rows)
    bool bulk_;                                 // array binding offered, and not refused yet
    std::vector<std::vector<BulkColumn>> columns_;  // by shape
};

}  // namespace rowpump::mysql

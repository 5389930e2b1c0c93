// The MySQL queue table of docs/DESIGN.md ("Queues"), written in bulk INSERTs (mysql_page_writer.hpp),
// one transaction per batch.
#include <algorithm>
#include <set>

#include "mysql/connection.hpp"
#include "backend/mysql_queue/mysql_page_writer.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "rowpump/error.hpp"
#include "backend/mysql_queue/mysql_queue_writers.hpp"

namespace rowpump {

namespace {

constexpr std::size_t max_priority = 127;  // TINYINT

class MySqlQueueSink final : public Sink {
public:
    explicit MySqlQueueSink(MySqlQueueTarget target)
        // Connector/C, for array binding (mysql/connection.hpp).
        : connection_(std::move(target.connection), mysql::SessionDriver::connector_c),
          table_(std::move(target.table)),
          writer_(with_queue_table(connection_, table_), table_, target.priority_lists.size()) {}

    void write(const std::vector<Message>& batch) override {
        if (batch.empty()) return;
        // The whole batch is one transaction, so a retry after a failure repeats nothing the server kept,
        // except when the connection is lost during COMMIT: the commit may have happened, and the retry
        // inserts the batch again (at-least-once, docs/DESIGN.md, "Delivery guarantees").
        connection_.retrying([&] { writer_.write(batch); });
    }

    void keep_alive() override { connection_.alive(); }

    std::optional<std::uint64_t> ready_count() override {
        return connection_.retrying([this] { return std::optional<std::uint64_t>(writer_.ready_count()); });
    }

    std::string describe() const override {
        return connection_.options().redacted() + " table " + mysql::quote_identifier(table_);
    }

private:
    // Creates (or checks) the table before the inserter prepares anything against it.
    static mysql::Connection& with_queue_table(mysql::Connection& connection, const std::string& table) {
        connection.retrying([&] {
            mysql::create_queue_table(connection, table);
            mysql::check_queue_table(connection, table);
        });
        return connection;
    }

    mysql::Connection connection_;
    std::string table_;
    mysql::PageWriter writer_;
};

}  // namespace

std::unique_ptr<Sink> make_mysql_queue_sink(MySqlQueueTarget target) {
    mysql::validate_queue_table_name(target.table);
    if (target.priority_lists.size() > max_priority)
        throw UsageError(std::to_string(target.priority_lists.size()) + " priority lists given: the queue table's "
                         "TINYINT priority allows at most " + std::to_string(max_priority));
    std::set<std::string> seen;
    for (const std::string& name : target.priority_lists)
        if (!seen.insert(name).second) throw UsageError("priority list '" + name + "' is named twice");
    try {
        return std::make_unique<MySqlQueueSink>(std::move(target));
    } catch (const ConnectionLost& error) {
        // make_sink() promises a QueueError for an unreachable target; errors after the start keep their
        // MySQL code and SQLSTATE (DbError).
        throw QueueError(std::string("MySQL queue unreachable: ") + error.what(), true);
    }
}

}  // namespace rowpump

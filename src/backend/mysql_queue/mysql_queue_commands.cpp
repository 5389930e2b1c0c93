// The queue commands' one-step maintenance of a MySQL queue table (backend/mysql_queue/mysql_consumers.hpp).
#include "backend/forwarding_admin.hpp"
#include "backend/mysql_queue/mysql_consumers.hpp"
#include "mysql/connection.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// Counting rows walks the index: at this many a count takes seconds, and "10000000+" says enough.
constexpr std::uint64_t stats_count_limit = 10'000'000;

// Each command's MySqlQueue connects and checks the table's shape, after init may have created it.
class MySqlQueueAdmin final : public ForwardingAdmin<MySqlQueue, MySqlOptions, MySqlQueueOptions> {
public:
    explicit MySqlQueueAdmin(const ConsumerOptions& options)
        : ForwardingAdmin(consumer_mysql_options(options.source), consumer_queue_options(options),
                          options.claim_timeout) {}

    std::string init() override {
        MySqlQueue::create_table(connection_, queue_.table);
        return "queue table " + mysql::quote_identifier(queue_.table) + " is ready in " + connection_.redacted();
    }
    QueueStats stats(bool exact) override { return open().stats(exact ? 0 : stats_count_limit); }
    StatsWords words() const override { return {"claimed", "owners", "oldest_claim_seconds"}; }
    std::string holder_line(const QueueStats::Holder& holder) const override {
        return "  connection " + holder.name + ": " + std::to_string(holder.tasks) + " claimed, oldest claim " +
               seconds_text(holder.age_seconds) + (holder.alive ? "" : ", CONNECTION GONE (reap to release)");
    }
    std::uint64_t promote() override {
        throw UsageError("queue promote is for Redis queues: MySQL tasks become claimable by themselves at available_at");
    }
    std::uint64_t purge(std::chrono::seconds older_than, std::size_t batch) override {
        return open().purge(older_than, batch);
    }
};

}  // namespace

std::unique_ptr<QueueAdmin> open_mysql_admin(const ConsumerOptions& options) {
    return std::make_unique<MySqlQueueAdmin>(options);
}

}  // namespace rowpump

#include "backend/mysql_queue/mysql_queue_backend.hpp"

#include <variant>

#include "backend/mysql_queue/mysql_consumers.hpp"
#include "backend/mysql_queue/mysql_job_admin.hpp"
#include "backend/mysql_queue/mysql_queue_writers.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

class MySqlQueueBackend final : public Backend {
public:
    MySqlQueueBackend()
        : Backend({.form = "mysql://user:pass@host:port/db",
                   .what = "a MySQL queue table",
                   .traits = {.takes_queue = true, .keeps_jobs = true, .claims_expire = true},
                   .queue_meaning = "the MySQL queue table, created when missing"}) {}

    void parse_target(const SinkSpec& spec) const override { mysql_queue_target(spec); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override {
        return make_mysql_queue_sink(mysql_queue_target(spec));
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        return open_mysql_job_store(mysql_queue_target(spec), definition);
    }

    std::unique_ptr<JobAdmin> open_job_admin(const SinkSpec& spec, const std::string&) const override {
        return open_mysql_job_admin(mysql_queue_target(spec).connection);
    }

    QueueSource parse_source(const QueueSource& source) const override {
        QueueSource typed = source;
        typed.connection = consumer_mysql_options(source);
        return typed;
    }
    void check_consumers(const ConsumerOptions& options) const override {
        if (options.claim_timeout <= std::chrono::milliseconds(0))
            throw UsageError("ConsumerOptions::claim_timeout must be more than 0: every claim would be taken back at once");
    }
    std::unique_ptr<QueueConsumer> open_consumer(const ConsumerOptions& options, std::size_t) const override {
        return open_mysql_consumer(options);
    }
    std::unique_ptr<QueueMaintainer> open_maintainer(const ConsumerOptions& options,
                                                     std::vector<std::string>) const override {
        return open_mysql_maintainer(options);
    }
    std::unique_ptr<QueueAdmin> open_admin(const ConsumerOptions& options) const override {
        return open_mysql_admin(options);
    }
};

}  // namespace

const Backend& mysql_queue_backend() { return the_backend<MySqlQueueBackend>(); }

}  // namespace rowpump

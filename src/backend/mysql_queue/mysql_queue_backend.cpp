#include "backend/mysql_queue/mysql_queue_backend.hpp"

#include "backend/mysql_queue/mysql_queue_writers.hpp"
#include "backend/sink_target.hpp"

namespace rowpump {

namespace {

class MySqlQueueBackend final : public Backend {
public:
    MySqlQueueBackend()
        : Backend({.form = "mysql://user:pass@host:port/db",
                   .what = "a MySQL queue table",
                   .traits = {.takes_queue = true, .keeps_jobs = true},
                   .queue_meaning = "the MySQL queue table, created when missing"}) {}

    void parse_target(const SinkSpec& spec) const override { sink_mysql_options(spec); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override {
        return make_mysql_queue_sink(spec, sink_mysql_options(spec));
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        return open_mysql_job_store(spec, definition);
    }
};

}  // namespace

const Backend& mysql_queue_backend() { return the_backend<MySqlQueueBackend>(); }

}  // namespace rowpump

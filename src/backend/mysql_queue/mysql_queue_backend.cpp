#include "backend/mysql_queue/mysql_queue_backend.hpp"

#include "backend/mysql_queue/mysql_queue_writers.hpp"
#include "backend/sink_target.hpp"

namespace rowpump {

namespace {

class MySqlQueueBackend final : public Backend {
public:
    std::string_view form() const override { return "mysql://user:pass@host:port/db"; }
    std::string_view what() const override { return "a MySQL queue table"; }
    BackendTraits traits() const override { return {.takes_queue = true, .keeps_jobs = true}; }
    std::string_view queue_meaning() const override { return "the MySQL queue table, created when missing"; }

    void parse_target(const SinkSpec& spec) const override { sink_mysql_options(spec); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override {
        return make_mysql_queue_sink(spec, sink_mysql_options(spec));
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        return open_mysql_job_store(spec, definition);
    }
};

}  // namespace

const Backend& mysql_queue_backend() {
    static const MySqlQueueBackend backend;
    return backend;
}

}  // namespace rowpump

// Loads a YAML job file into a JobSpec. Everything is checked here, before any connection is opened:
// unknown keys (with a "did you mean" hint), wrong types, missing fields, YAML syntax errors, duplicated
// keys and unset ${VAR}s are ConfigErrors at the file's line and column ("jobs/x.yaml:7:3: ...").
//
// The schema (jobs/README.md has the long form):
//
//   job_id: orders-backfill          # optional; exactly-once checkpoints and --resume
//   source:
//     mysql: ${ROWPUMP_MYSQL_URL}    # required; a password may come from ROWPUMP_MYSQL_PASSWORD[_FILE]
//     table: sample_orders           # required; name or schema.name
//     key: [id]                      # optional; a list or one name (default: primary key)
//     columns: [id, customer_id]     # optional (default: every column)
//     where: "status = 'paid'"       # optional SQL condition
//     strategy: keyset               # keyset | deferred-join | id-in | offset
//     null_keys: refuse              # refuse | first
//     page_size: 10000               # first page's rows (default 10000)
//     page_time_ms: 250              # adaptive target time per page (default 250; 0: fixed page size)
//     max_page_size: 10000           # largest adaptive page (default 10000, at least page_size)
//     set_vars: "innodb_lock_wait_timeout=5,max_statement_time=30"   # session variables, optional
//     consistent_snapshot: false     # every worker reads one snapshot (docs/tls-and-session.md)
//   partitions:
//     count: 8                       # default: workers
//     strategy: balanced             # balanced | minmax
//   workers: 2                       # default: the number of cores
//   sink:
//     uri: ${ROWPUMP_REDIS_URL}      # required; stdout | file:PATH | redis://... | mysql://...
//     queue: orders                  # required for redis and mysql sinks (sidekiq: default, celery: celery)
//     format: json                   # json | csv | template | sidekiq | activejob | celery | bullmq (docs/payloads-and-names.md,
//                                    #   docs/worker-formats.md)
//     template: "{id}"               # format template: {column}, {column:json}, {row}; {{ }} braces
//     job_class: Billing::InvoiceJob # format sidekiq, activejob: the job class its workers run
//     sidekiq_timestamps: seconds    # format sidekiq: seconds (Sidekiq 6, 7) | ms (Sidekiq 8)
//     task: billing.tasks.invoice    # format celery: the task name its workers run
//     sidekiq_retry: 5               # format sidekiq, activejob: true | false | a retry count
//     sidekiq_dead: true             # false: a job out of retries is dropped, not kept in `dead`
//     sidekiq_fields: [source=etl]   # more keys of the job, string values
//     sidekiq_tags: [nightly]        # the job's tags
//     celery_expires: 3600           # format celery: seconds until a task not yet started is revoked
//     celery_kwargs: [name, amount]  # columns passed as keyword arguments
//     routing_key: billing.invoice   # delivery_info's routing key (default: the queue)
//     celery_priority: 5             # format celery: 0..9, kombu's list Q\x06\x16<step> for steps 3, 6, 9
//     celery_priority_column: urgency  # or each row's priority from an integer column (not with celery_priority)
//     job_name: invoice              # format bullmq: the jobs' name
//     bullmq_job_id: "order-{id}"    # format bullmq: each job's id from its row (default: BullMQ's counter)
//     bullmq_prefix: bull            # format bullmq: BullMQ's key prefix
//     big_numbers: number            # number | string (DECIMAL and integers beyond 2^53 as strings)
//     json_columns: string           # string | embed (a JSON column as its JSON value, not a string)
//     csv_null: empty                # format csv: empty | '\N' (as mysqldump --tab; backslashes doubled)
//     list_key: "{queue}:p:{level}"  # Redis: priority list names
//     delayed_key: "{queue}:delayed" # Redis: the delayed set
//     delay_score: ms                # ms | s: unit of the delayed set's scores
//     delayed_members: tagged        # tagged | bare
//     state_prefix: "rowpump:job:"   # Redis: prefix of the job_id's state keys
//     push: rpush                    # rpush | lpush (not with sidekiq or celery: they LPUSH) | xadd (a
//                                    #   stream: docs/streams.md)
//     stream_maxlen: 0               # push xadd: XADD MAXLEN ~ N (0: no trim)
//     priority:                      # optional
//       column: amount
//       levels: [{name: high, min: 1000}, {name: mid, min: 100}, {name: low}]   # highest first
//                                    # or the string form "high:1000,mid:100,low"
//     delay: 30                      # seconds, optional (every row a delayed task)
//     due_column: remind_at          # optional; not with delay
//   limits:
//     rate: 10000                    # rows/s over all workers, optional
//     high_water: 100000             # optional
//   throttle:                        # optional; docs/throttling.md
//     replicas: [mysql://rowpump@127.0.0.1:3408/rowpump]   # a list, or one URL
//     max_lag: 1.5                   # seconds (default 1.5)
//     lag_query: "SELECT ..."        # optional; replaces the heartbeat on every replica
//     max_load: Threads_running=25   # VAR=N[,VAR=N], or a map {Threads_running: 25}
//     critical_load: Threads_running=200
//     pause_file: /tmp/pause-orders
//     http: 127.0.0.1:8080
//   lease_timeout: 60                # seconds, optional
//   follow: false                    # also read rows added above the key's maximum at the start
//
// ${NAME} in any value is the environment variable NAME ($${ is a literal ${). `--set path=value`
// overrides (source.page_size=500, workers=4) change the tree before it is checked.
#include "config/option_checks.hpp"
#include "job/job_sections.hpp"
#include "job/option_fields.hpp"
#include "job/overrides.hpp"
#include "job/yaml_document.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"

namespace rowpump {

namespace {

using config::OptionId;
using job::read_option;

void read_partitions(const job::Field& field, JobSpec& spec) {
    const job::Section partitions = field.section(config::section_keys("partitions"));
    std::uint64_t count = 0;
    if (read_option(partitions, OptionId::partitions, count)) spec.partitions = count;
    read_option(partitions, OptionId::partition_strategy, spec.partition_strategy);
}

void read_limits(const job::Field& field, JobSpec& spec) {
    const job::Section limits = field.section(config::section_keys("limits"));
    read_option(limits, OptionId::rate, spec.rate);
    read_option(limits, OptionId::high_water, spec.high_water);
}

}  // namespace

JobSpec load_job(const std::string& path, const std::vector<std::string>& overrides) {
    YAML::Node root = job::read_yaml_file(path);
    if (!root.IsMap()) {
        const std::string got = root.IsNull() ? "an empty file" : root.IsSequence() ? "a list" : "a single value";
        throw ConfigError(path, 1, 1, "expected a map with at least source and sink, got " + got);
    }
    job::Origin origin{path, {}};
    origin.overrides = job::apply_overrides(root, overrides, path);

    const job::Section job = job::Field(origin, root, "").section(
        {"job_id", "source", "partitions", "workers", "sink", "limits", "lease_timeout", "follow", "throttle",
         "progress_interval"});
    JobSpec spec;
    if (auto job_id = job.given("job_id")) {
        // `job_id:` or `--set job_id=$JOB` with JOB empty gives no id: read as "no job", the run would go on
        // without exactly-once, and a second run would write every row again. text() refuses an empty value.
        spec.job_id = job_id->text();
        if (spec.job_id.empty() || spec.job_id.size() > 191)
            job_id->fail("a job id must be 1 to 191 characters; give one, or remove job_id to run without "
                         "exactly-once checkpoints");
    }
    job::read_source(job.required("source", "what to read: source: {mysql: URL, table: NAME}"), spec);
    if (auto partitions = job.optional("partitions")) read_partitions(*partitions, spec);
    std::uint64_t workers = 0;
    if (read_option(job, OptionId::workers, workers)) spec.workers = workers;
    job::read_sink(job.required("sink", "where rows go: sink: {uri: URI, queue: NAME}"), spec);
    spec.sink.timeouts = spec.mysql;  // the source URL's read_timeout and write_timeout hold for the sink too
    if (auto limits = job.optional("limits")) read_limits(*limits, spec);
    if (auto throttle = job.optional("throttle")) job::read_throttle(*throttle, spec.throttle);
    std::uint64_t lease_timeout = 0;
    if (read_option(job, OptionId::lease_timeout, lease_timeout)) spec.lease_timeout = std::chrono::seconds(lease_timeout);
    read_option(job, OptionId::follow, spec.follow);
    read_option(job, OptionId::progress_interval, spec.progress_interval_seconds);
    // The rules between options, as run_job checks them, here too so that the error names the line.
    job::at_option(origin, root, [&] { config::check_job_options(spec); });
    return spec;
}

}  // namespace rowpump

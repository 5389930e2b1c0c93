// The option schema (src/config): every option is described whole, its default passes its own bounds, and
// one option given on the command line (cli/schema_flags) and in a job file (job/option_fields) reaches
// the same typed value, or the same refusal. Errors about options read in each front end's spelling.
#include <gtest/gtest.h>

#include <charconv>
#include <set>
#include <string>
#include <vector>

#include "cli/queue_command.hpp"
#include "cli/schema_flags.hpp"
#include "config/choices.hpp"
#include "config/option_checks.hpp"
#include "config/option_error.hpp"
#include "config/option_schema.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

using config::OptionId;
using config::Spelling;
using config::ValueKind;

// Options of a run rather than of a job file: the timeouts are parameters of the source URL there, and
// `rowpump run --resume` is a flag of the command.
const std::set<OptionId> only_cli = {OptionId::read_timeout, OptionId::write_timeout, OptionId::retry_budget,
                                     OptionId::page_timeout, OptionId::resume};

// The commands an option is a flag of: its scope's ("queue consume, queue reap"), or backfill's for a job's.
std::vector<std::string> commands_of(const config::OptionSpec& spec) {
    std::vector<std::string> commands;
    const std::string scope = spec.scope.empty() ? "backfill" : spec.scope;
    for (std::size_t start = 0; start != std::string::npos;) {
        const auto comma = scope.find(", ", start);
        commands.push_back(scope.substr(start, comma == std::string::npos ? comma : comma - start));
        start = comma == std::string::npos ? comma : comma + 2;
    }
    return commands;
}

TEST(OptionSchemaTest, EveryOptionIsDescribedWhole) {
    std::set<std::string> flags;  // "command --flag": a flag may mean another thing in another command
    std::set<std::string> paths;
    for (const auto& spec : config::all_options()) {
        SCOPED_TRACE(spec.cli);
        EXPECT_EQ(&config::option(spec.id), &spec);
        EXPECT_TRUE(spec.cli.starts_with("--") && spec.cli.size() > 2);
        EXPECT_FALSE(spec.help.empty());
        for (const auto& command : commands_of(spec))
            EXPECT_TRUE(flags.insert(command + " " + spec.cli).second) << "flag given twice in " << command;
        if (only_cli.contains(spec.id) || !spec.scope.empty()) {
            EXPECT_TRUE(spec.yaml.empty());
            EXPECT_EQ(config::spelled(spec.id, Spelling::yaml), spec.cli);
        } else {
            EXPECT_FALSE(spec.yaml.empty());
            EXPECT_TRUE(paths.insert(spec.yaml).second) << "path given twice";
            EXPECT_EQ(config::spelled(spec.id, Spelling::yaml), spec.yaml);
        }
        EXPECT_EQ(config::spelled(spec.id, Spelling::cli), spec.cli);
        if (spec.kind == ValueKind::choice) EXPECT_GE(spec.choices.size(), 2u);
        else EXPECT_TRUE(spec.choices.empty());
    }
}

TEST(OptionSchemaTest, DefaultsPassTheirOwnBounds) {
    for (const auto& spec : config::all_options()) {
        SCOPED_TRACE(spec.cli + " default '" + spec.default_text + "'");
        const std::string& text = spec.default_text;
        switch (spec.kind) {
            case ValueKind::whole: {
                if (text.empty()) break;  // --partitions, --workers: follow the cores
                std::uint64_t value = 0;
                const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
                EXPECT_TRUE(error == std::errc() && end == text.data() + text.size());
                EXPECT_GE(value, spec.whole.min);
                EXPECT_LE(value, spec.whole.max);
                break;
            }
            case ValueKind::real:
                EXPECT_TRUE(parse_bounded_number(text, spec.real).has_value());
                break;
            case ValueKind::choice:
                EXPECT_NE(std::find(spec.choices.begin(), spec.choices.end(), text), spec.choices.end());
                break;
            case ValueKind::flag:
                EXPECT_EQ(text, "false");
                break;
            case ValueKind::text:
            case ValueKind::names:
                break;
        }
    }
}

TEST(OptionSchemaTest, DefaultsAreTheLibrarysDefaults) {
    const JobSpec spec;
    EXPECT_EQ(config::option(OptionId::list_key).default_text, spec.sink.redis_only.list_key);
    EXPECT_EQ(config::option(OptionId::delayed_key).default_text, spec.sink.redis_only.delayed_key);
    EXPECT_EQ(config::option(OptionId::state_prefix).default_text, spec.state_prefix);
    EXPECT_EQ(config::option(OptionId::delay_score).default_text, config::choice_name(spec.sink.redis_only.delay_score));
    EXPECT_EQ(config::option(OptionId::format).default_text, config::choice_name(spec.format));
    EXPECT_EQ(config::option(OptionId::page_size).default_text, std::to_string(spec.read.page_size));
    EXPECT_EQ(config::option(OptionId::lease_timeout).default_text, std::to_string(spec.lease_timeout.count()));
}

// The queue commands' flags land in QueueOptions, whose initial values are what a command runs with when a
// flag is not given: the schema states the same (a bound that refused its own default would show too).
TEST(OptionSchemaTest, QueueDefaultsAreTheCommandsDefaults) {
    const cli::QueueOptions options;
    const auto text = [](OptionId id) { return config::option(id).default_text; };
    const auto real = [](OptionId id) { return std::stod(config::option(id).default_text); };
    EXPECT_EQ(text(OptionId::concurrency), std::to_string(options.concurrency));
    EXPECT_EQ(text(OptionId::batch), std::to_string(options.batch));
    EXPECT_EQ(text(OptionId::claim_mode), config::choice_name(options.claim_mode));
    EXPECT_EQ(text(OptionId::max_attempts), std::to_string(options.max_attempts));
    EXPECT_EQ(text(OptionId::max_crashes), std::to_string(options.max_crashes));
    EXPECT_EQ(real(OptionId::backoff), options.backoff_seconds);
    EXPECT_EQ(real(OptionId::backoff_cap), options.backoff_cap_seconds);
    EXPECT_EQ(real(OptionId::claim_timeout), options.claim_timeout_seconds);
    EXPECT_EQ(real(OptionId::heartbeat_timeout), options.heartbeat_timeout_seconds);
    EXPECT_EQ(real(OptionId::stats_heartbeat_timeout), options.heartbeat_timeout_seconds);
    EXPECT_EQ(real(OptionId::reap_interval), options.reap_interval_seconds);
    EXPECT_EQ(real(OptionId::poll), options.poll_seconds);
    EXPECT_EQ(real(OptionId::log_interval), options.log_interval_seconds);
    EXPECT_EQ(real(OptionId::older_than), options.older_than_seconds);
    EXPECT_EQ(text(OptionId::purge_batch), std::to_string(options.purge_batch));
    EXPECT_EQ(text(OptionId::stats_format), options.stats_format);
    EXPECT_EQ(config::option(OptionId::queue_source).env, "ROWPUMP_QUEUE_SOURCE");
}

template <class E>
void expect_round_trip() {
    for (const auto& name : config::choice_names<E>()) {
        const auto value = config::parse_choice<E>(name);
        ASSERT_TRUE(value.has_value()) << name;
        EXPECT_EQ(config::choice_name(*value), name);
    }
    EXPECT_FALSE(config::parse_choice<E>("no-such-choice").has_value());
}

TEST(OptionSchemaTest, ChoiceNamesRoundTrip) {
    expect_round_trip<DelayScore>();
    expect_round_trip<PushSide>();
    expect_round_trip<DelayedMembers>();
    expect_round_trip<SidekiqTimestamps>();
    expect_round_trip<Format>();
    expect_round_trip<BigNumbers>();
    expect_round_trip<JsonColumns>();
    expect_round_trip<CsvNull>();
    expect_round_trip<PartitionStrategy>();
    expect_round_trip<PagingStrategy>();
    expect_round_trip<NullKeys>();
    expect_round_trip<ClaimMode>();
    // The library's own names agree with the tables.
    for (const auto& name : config::choice_names<Format>()) EXPECT_EQ(format_name(parse_format(name)), name);
}

TEST(OptionSchemaTest, SectionKeysKeepTheJobFilesOrder) {
    EXPECT_EQ(config::section_keys("sink"),
              (std::vector<std::string>{"uri", "queue", "format", "push", "priority", "delay", "due_column",
                                        "overwrite", "job_class", "task", "sidekiq_timestamps", "sidekiq_retry",
                                        "sidekiq_dead", "sidekiq_fields", "sidekiq_tags", "celery_expires",
                                        "celery_kwargs", "routing_key", "celery_priority", "celery_priority_column", "job_name",
                                        "bullmq_job_id", "bullmq_prefix", "template",
                                        "big_numbers", "json_columns", "csv_null", "list_key", "delayed_key",
                                        "delay_score", "delayed_members", "state_prefix", "redis_wait",
                                        "stream_maxlen", "shards"}));
    EXPECT_EQ(config::section_keys("sink.priority"), (std::vector<std::string>{"column", "levels"}));
    EXPECT_EQ(config::section_keys("limits"), (std::vector<std::string>{"rate", "high_water"}));
    EXPECT_EQ(config::section_keys("partitions"), (std::vector<std::string>{"count", "strategy"}));
}

TEST(OptionSchemaTest, ErrorsSpellOptionsAsEachFrontEnd) {
    try {
        config::check_push_applies(Format::sidekiq, true);
        FAIL() << "push with sidekiq was accepted";
    } catch (const config::OptionError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "--push does not apply to --format sidekiq: its client LPUSHes and its workers BRPOP, so rowpump "
                  "does the same; remove --push");
        EXPECT_EQ(error.render(Spelling::yaml),
                  "sink.push does not apply to sink.format sidekiq: its client LPUSHes and its workers BRPOP, so "
                  "rowpump does the same; remove sink.push");
        EXPECT_EQ(error.subject(), OptionId::push);
        EXPECT_EQ(config::error_text(error, Spelling::yaml), error.render(Spelling::yaml));
    }
    EXPECT_NO_THROW(config::check_push_applies(Format::json, true));
    EXPECT_NO_THROW(config::check_push_applies(Format::celery, false));
    const UsageError plain("plain");
    EXPECT_EQ(config::error_text(plain, Spelling::yaml), "plain");
}

TEST(OptionSchemaTest, RedisNameOptionsAreNamedOnlyWhenGiven) {
    SinkSpec sink;
    sink.uri = "file:/tmp/x.ndjson";
    EXPECT_NO_THROW(config::check_redis_names_apply(sink, false));
    sink.redis_only.delay_score = DelayScore::seconds;
    try {
        config::check_redis_names_apply(sink, false);
        FAIL() << "a delay score was accepted for a file sink";
    } catch (const config::OptionError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "--delay-score names Redis keys, and file:/tmp/x.ndjson has none: drop it, or write to a redis:// "
                  "sink");
    }
    sink.redis_only.list_key = "{queue}:{level}";
    try {
        config::check_redis_names_fit_format(sink, "celery");
        FAIL() << "rowpump's key names were accepted with celery";
    } catch (const config::OptionError& error) {
        EXPECT_EQ(error.render(Spelling::yaml),
                  "sink.list_key and sink.delay_score name rowpump's own keys, and sink.format celery writes "
                  "celery's: drop them");
    }
    EXPECT_NO_THROW(config::check_redis_names_apply(sink, true));
}

// The value a flag gives, parsed by CLI11 as the backfill command binds it.
template <class T>
T from_cli(OptionId id, const std::string& value) {
    CLI::App app;
    T target{};
    cli::add_schema_option(app, id, target);
    app.parse(config::option(id).cli + " " + value);
    return target;
}

// The JobSpec of a minimal job file with `extra` added under the sink (or at the top when `top`).
JobSpec from_yaml(const std::string& sink_extra, const std::string& top = "") {
    const test::TempFile job(std::string("source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders\n") +
                                 "sink:\n  uri: redis://127.0.0.1:6379/0\n  queue: q\n" + sink_extra + top,
                             ".yaml");
    return load_job(job.path());
}

TEST(OptionSchemaTest, CommandLineAndJobFileReachTheSameValue) {
    EXPECT_EQ(from_cli<DelayScore>(OptionId::delay_score, "s"), DelayScore::seconds);
    EXPECT_EQ(from_yaml("  delay_score: s\n").sink.redis_only.delay_score, DelayScore::seconds);

    EXPECT_EQ(from_cli<DelayedMembers>(OptionId::delayed_members, "bare"), DelayedMembers::bare);
    EXPECT_EQ(from_yaml("  delayed_members: bare\n").sink.redis_only.delayed_members, DelayedMembers::bare);

    EXPECT_EQ(from_cli<std::optional<PushSide>>(OptionId::push, "lpush"), PushSide::left);
    EXPECT_EQ(from_yaml("  push: lpush\n").sink.push, PushSide::left);
    EXPECT_EQ(from_yaml("  push: xadd\n").sink.push, PushSide::xadd);
    EXPECT_EQ(from_yaml("  push: xadd\n  stream_maxlen: 1000\n").sink.redis_only.stream_maxlen, 1000u);

    EXPECT_EQ(from_cli<Format>(OptionId::format, "csv"), Format::csv);
    EXPECT_EQ(from_yaml("  format: csv\n").format, Format::csv);

    EXPECT_EQ(from_cli<double>(OptionId::rate, "250.5"), 250.5);
    EXPECT_EQ(from_yaml("", "limits:\n  rate: 250.5\n").rate, 250.5);

    EXPECT_EQ(from_cli<std::size_t>(OptionId::high_water, "0"), 0u);
    EXPECT_EQ(from_yaml("", "limits:\n  high_water: 0\n").high_water, 0u);

    EXPECT_EQ(from_cli<std::size_t>(OptionId::workers, "12"), 12u);
    EXPECT_EQ(from_yaml("", "workers: 12\n").workers, 12u);

    EXPECT_EQ(from_cli<std::string>(OptionId::list_key, "{queue}:lvl:{level}"), "{queue}:lvl:{level}");
    EXPECT_EQ(from_yaml("  list_key: \"{queue}:lvl:{level}\"\n").sink.redis_only.list_key, "{queue}:lvl:{level}");
}

TEST(OptionSchemaTest, CommandLineAndJobFileRefuseTheSameValue) {
    const auto refused = [](OptionId id, const std::string& value, const std::string& sink_extra,
                            const std::string& top) {
        SCOPED_TRACE(config::option(id).cli + " " + value);
        if (config::option(id).kind == ValueKind::choice) EXPECT_THROW(from_cli<DelayScore>(id, value), CLI::ParseError);
        else if (config::option(id).kind == ValueKind::real) EXPECT_THROW(from_cli<double>(id, value), CLI::ParseError);
        else EXPECT_THROW(from_cli<std::size_t>(id, value), CLI::ParseError);
        EXPECT_THROW(from_yaml(sink_extra, top), ConfigError);
    };
    refused(OptionId::delay_score, "seconds", "  delay_score: seconds\n", "");
    refused(OptionId::rate, "0.5", "", "limits:\n  rate: 0.5\n");
    refused(OptionId::rate, "-5", "", "limits:\n  rate: -5\n");
    refused(OptionId::workers, "257", "", "workers: 257\n");
    refused(OptionId::delay, "1e300", "  delay: 1e300\n", "");
}

TEST(OptionSchemaTest, AFlagOfAnotherKindIsABug) {
    CLI::App app;
    std::string text;
    EXPECT_THROW(cli::add_schema_option(app, OptionId::workers, text), std::logic_error);
}

}  // namespace
}  // namespace rowpump

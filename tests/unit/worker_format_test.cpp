// The Sidekiq and Celery formats without a server: the jobs' fields and their order, ids, times, the
// keys and scores their push plans use, and the task specs that are refused.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "encode/unique_ids.hpp"
#include "backend/redis/redis_push_plan.hpp"
#include "planned_commands.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "test_columns.hpp"
#include "worker_tasks.hpp"

namespace rowpump {
namespace {

using namespace test;

const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("name", ColumnKind::text),
                                     column("price", ColumnKind::decimal), column("data", ColumnKind::binary)};

Page sample_page() {
    Page page(columns.size());
    page.append("7");
    page.append("Zo\xc3\xab \"q\"\n");
    page.append("12.50");
    page.append_null();
    return page;
}

std::string row_json() {
    std::string out;
    make_encoder(Format::json, columns)->encode(sample_page(), 0, out);
    return out;
}

std::string encode_task(Format format, const TaskSpec& task, TaskTimes times) {
    std::string out;
    make_encoder(format, columns, task)->encode_task(sample_page(), 0, times, out);
    return out;
}

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document document;
    document.Parse(text.data(), text.size());
    EXPECT_FALSE(document.HasParseError()) << text;
    return document;
}

std::string text_of(const rapidjson::Value& value) { return std::string(value.GetString(), value.GetStringLength()); }

std::vector<std::string> member_names(const rapidjson::Value& object) {
    std::vector<std::string> names;
    for (auto member = object.MemberBegin(); member != object.MemberEnd(); ++member) names.push_back(text_of(member->name));
    return names;
}

constexpr std::int64_t now_us = 1'796'128'989'462'728;  // 2026-12-01 12:43:09.462728 UTC

TEST(WorkerFormatTest, SidekiqJobHasPushBulksKeysInItsOrder) {
    const auto job = parse(encode_task(Format::sidekiq, sidekiq_task(), {now_us, 0, {}}));
    EXPECT_EQ(member_names(job), (std::vector<std::string>{"retry", "queue", "class", "args", "jid", "created_at",
                                                           "enqueued_at"}));
    EXPECT_TRUE(job["retry"].IsTrue());
    EXPECT_EQ(text_of(job["queue"]), "invoices");
    EXPECT_EQ(text_of(job["class"]), "Billing::InvoiceJob");
    ASSERT_EQ(job["args"].Size(), 1u);
    EXPECT_EQ(text_of(job["args"][0]["name"]), "Zo\xc3\xab \"q\"\n");
    EXPECT_TRUE(job["args"][0]["data"].IsNull());
    EXPECT_TRUE(std::regex_match(text_of(job["jid"]), std::regex("[0-9a-f]{24}")));
    EXPECT_TRUE(job["created_at"].IsDouble());
    EXPECT_DOUBLE_EQ(job["created_at"].GetDouble(), 1796128989.462728);
    EXPECT_DOUBLE_EQ(job["enqueued_at"].GetDouble(), 1796128989.462728);
}

TEST(WorkerFormatTest, SidekiqJobCarriesTheRowAsTheJsonFormatWritesIt) {
    const std::string job = encode_task(Format::sidekiq, sidekiq_task(), {now_us, 0, {}});
    EXPECT_NE(job.find(",\"args\":[" + row_json() + "],"), std::string::npos) << job;
}

TEST(WorkerFormatTest, ScheduledSidekiqJobHasNoEnqueuedAt) {
    // Sidekiq's poller adds enqueued_at when it moves the job from `schedule` to its queue.
    const auto job = parse(encode_task(Format::sidekiq, sidekiq_task(), {now_us, 1'796'129'000'000, {}}));
    EXPECT_FALSE(job.HasMember("enqueued_at"));
    EXPECT_TRUE(job.HasMember("created_at"));
}

TEST(WorkerFormatTest, Sidekiq8TimestampsAreIntegerMilliseconds) {
    TaskSpec task = sidekiq_task();
    task.sidekiq_timestamps = SidekiqTimestamps::milliseconds;
    const auto job = parse(encode_task(Format::sidekiq, task, {now_us, 0, {}}));
    ASSERT_TRUE(job["created_at"].IsInt64());
    EXPECT_EQ(job["created_at"].GetInt64(), 1'796'128'989'462);
    EXPECT_EQ(job["enqueued_at"].GetInt64(), 1'796'128'989'462);
}

TEST(WorkerFormatTest, CeleryMessageIsKombusEnvelopeOfAProtocol2Task) {
    const auto message = parse(encode_task(Format::celery, celery_task(), {now_us, 0, {}}));
    EXPECT_EQ(member_names(message),
              (std::vector<std::string>{"body", "content-encoding", "content-type", "headers", "properties"}));
    EXPECT_EQ(text_of(message["content-type"]), "application/json");
    EXPECT_EQ(text_of(message["content-encoding"]), "utf-8");
    EXPECT_EQ(base64_decode(text_of(message["body"])),
              "[[" + row_json() + "], {}, {\"callbacks\": null, \"errbacks\": null, \"chain\": null, \"chord\": null}]");

    const auto& headers = message["headers"];
    EXPECT_EQ(member_names(headers),
              (std::vector<std::string>{"lang", "task", "id", "shadow", "eta", "expires", "group", "group_index",
                                        "retries", "timelimit", "root_id", "parent_id", "argsrepr", "kwargsrepr",
                                        "origin", "ignore_result"}));
    EXPECT_EQ(text_of(headers["lang"]), "py");
    EXPECT_EQ(text_of(headers["task"]), "billing.tasks.invoice");
    const std::regex uuid4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    const std::string id = text_of(headers["id"]);
    EXPECT_TRUE(std::regex_match(id, uuid4)) << id;
    EXPECT_EQ(text_of(headers["root_id"]), id);
    EXPECT_TRUE(headers["parent_id"].IsNull());
    EXPECT_TRUE(headers["eta"].IsNull());
    EXPECT_EQ(headers["retries"].GetInt(), 0);
    EXPECT_EQ(text_of(headers["argsrepr"]), "[" + row_json() + "]");
    EXPECT_EQ(text_of(headers["kwargsrepr"]), "{}");

    const auto& properties = message["properties"];
    EXPECT_EQ(text_of(properties["correlation_id"]), id);
    EXPECT_TRUE(std::regex_match(text_of(properties["reply_to"]), uuid4));
    EXPECT_EQ(properties["delivery_mode"].GetInt(), 2);
    EXPECT_EQ(text_of(properties["delivery_info"]["exchange"]), "");
    EXPECT_EQ(text_of(properties["delivery_info"]["routing_key"]), "celery");
    EXPECT_EQ(properties["priority"].GetInt(), 0);
    EXPECT_EQ(text_of(properties["body_encoding"]), "base64");
    const std::string tag = text_of(properties["delivery_tag"]);
    EXPECT_TRUE(std::regex_match(tag, uuid4)) << tag;
    EXPECT_NE(tag, id);
}

TEST(WorkerFormatTest, CeleryEtaIsTheDueTimeInIsoFormat) {
    const auto with_fraction = parse(encode_task(Format::celery, celery_task(), {now_us, 1'893'456'000'250, {}}));
    EXPECT_EQ(text_of(with_fraction["headers"]["eta"]), "2030-01-01T00:00:00.250000+00:00");
    const auto whole_second = parse(encode_task(Format::celery, celery_task(), {now_us, 1'796'128'989'000, {}}));
    EXPECT_EQ(text_of(whole_second["headers"]["eta"]), "2026-12-01T12:43:09+00:00");
}

TEST(WorkerFormatTest, CeleryArgsreprIsCutAt1024BytesOnACharacterBoundary) {
    Page page(1);
    std::string long_text;
    for (int i = 0; i < 600; ++i) long_text += "\xc3\xab";  // 1200 bytes of two-byte characters
    page.append(long_text);
    std::string out;
    make_encoder(Format::celery, {column("t", ColumnKind::text)}, celery_task())->encode_task(page, 0, {now_us, 0, {}}, out);
    const std::string repr = text_of(parse(out)["headers"]["argsrepr"]);
    EXPECT_LE(repr.size(), 1024u);
    EXPECT_GE(repr.size(), 1023u);
    EXPECT_NE(static_cast<unsigned char>(repr.back()), 0xc3u) << "a character was cut in half";
}

TEST(WorkerFormatTest, IdsAreUniqueAndWellFormed) {
    const UniqueIds ids;
    std::set<std::string> jids;
    std::set<std::string> uuids;
    for (int i = 0; i < 100'000; ++i) {
        std::string jid;
        ids.append_jid(jid);
        jids.insert(jid);
        std::string uuid;
        ids.append_uuid4(uuid);
        uuids.insert(uuid);
    }
    EXPECT_EQ(jids.size(), 100'000u);
    EXPECT_EQ(uuids.size(), 100'000u);
    const std::regex uuid4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    // std::regex is slow: the shape of a sample.
    const std::regex jid_shape("[0-9a-f]{24}");
    for (auto uuid = uuids.begin(), jid = jids.begin(); uuid != uuids.end() && *uuid < "1"; ++uuid, ++jid) {
        ASSERT_TRUE(std::regex_match(*uuid, uuid4)) << *uuid;
        ASSERT_TRUE(std::regex_match(*jid, jid_shape)) << *jid;
    }
}

TEST(WorkerFormatTest, IdsOfTwoGeneratorsDiffer) {
    // Two processes draw their own seeds; ids that differed only by a counter would collide between them.
    const UniqueIds first;
    const UniqueIds second;
    std::string a;
    std::string b;
    first.append_jid(a);
    second.append_jid(b);
    EXPECT_NE(a, b);
    const UniqueIds seeded(1, 2);
    const UniqueIds same_seeds(1, 2);
    std::string c;
    std::string d;
    seeded.append_jid(c);
    same_seeds.append_jid(d);
    EXPECT_EQ(c, d) << "ids are a function of the seeds and the counter";
    seeded.append_jid(c);
    EXPECT_NE(c.substr(0, 24), c.substr(24));
}

TEST(WorkerFormatTest, BadTaskSpecsAreRefused) {
    TaskSpec none;
    EXPECT_THROW(check_task_spec(Format::sidekiq, none), UsageError);
    EXPECT_THROW(check_task_spec(Format::celery, none), UsageError);
    for (const char* bad : {"foo", "Foo::", "::Foo", "Foo::bar", "Foo Bar", "Foo-Bar", "Foo:Bar", "Foo::::Bar", "É"}) {
        TaskSpec task;
        task.job_class = bad;
        EXPECT_THROW(check_task_spec(Format::sidekiq, task), UsageError) << bad;
    }
    for (const char* good : {"Foo", "Billing::InvoiceJob", "A::B_2::C3"}) {
        TaskSpec task;
        task.job_class = good;
        EXPECT_NO_THROW(check_task_spec(Format::sidekiq, task)) << good;
    }
    TaskSpec class_for_celery = celery_task();
    class_for_celery.job_class = "Foo";
    EXPECT_THROW(check_task_spec(Format::celery, class_for_celery), UsageError);
    TaskSpec task_for_json;
    task_for_json.task = "x";
    EXPECT_THROW(check_task_spec(Format::json, task_for_json), UsageError);
    TaskSpec spaced = celery_task();
    spaced.task = "my task";
    EXPECT_THROW(check_task_spec(Format::celery, spaced), UsageError);
    TaskSpec ms_for_celery = celery_task();
    ms_for_celery.sidekiq_timestamps = SidekiqTimestamps::milliseconds;
    EXPECT_THROW(check_task_spec(Format::celery, ms_for_celery), UsageError);
    EXPECT_THROW(make_encoder(Format::sidekiq, columns, none), UsageError);
}

using test::planned;

TEST(WorkerFormatTest, SidekiqPlanUsesSidekiqsKeysAndScores) {
    SinkSpec spec;
    spec.queue = "invoices";
    spec.layout = QueueLayout::sidekiq;
    const auto commands = planned(spec, {{"a", 0, 0}, {"b", 0, 0}, {"later", 0, 1'796'129'000'042}});
    using Command = std::vector<std::string>;
    EXPECT_EQ(commands, (std::vector<Command>{{"SADD", "queues", "invoices"},
                                              {"LPUSH", "queue:invoices", "a", "b"},
                                              {"ZADD", "schedule", "1796129000.042", "later"}}));
    const auto only_delayed = planned(spec, {{"later", 0, 1'796'129'000'000}});
    EXPECT_EQ(only_delayed, (std::vector<Command>{{"ZADD", "schedule", "1796129000.000", "later"}}));
}

TEST(WorkerFormatTest, CeleryPlanPushesDelayedTasksAtOnce) {
    SinkSpec spec;
    spec.queue = "celery";
    spec.layout = QueueLayout::celery;
    const auto commands = planned(spec, {{"a", 0, 0}, {"eta", 0, 1'796'129'000'000}});
    EXPECT_EQ(commands, (std::vector<std::vector<std::string>>{{"LPUSH", "celery", "a", "eta"}}));
}

TEST(WorkerFormatTest, WorkerLayoutsRefusePriorityLists) {
    SinkSpec spec;
    spec.queue = "q";
    spec.layout = QueueLayout::sidekiq;
    spec.priority_lists = {"high", "low"};
    EXPECT_THROW(redis::PushPlan{redis_queue_keys(spec)}, UsageError);
}

// Loads a job file holding `text`, removed after.
JobSpec load_text(const std::string& text) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("rp_worker_format_test_" + std::to_string(::getpid()) + ".yaml"))
            .string();
    std::ofstream(path) << text;
    struct Remove {
        std::string path;
        ~Remove() { std::filesystem::remove(path); }
    } remove{path};
    return load_job(path);
}

const std::string yaml_source = "source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders\n";

TEST(WorkerFormatTest, YamlJobTakesTheWorkerFormatsFields) {
    const JobSpec sidekiq = load_text(yaml_source + "sink:\n  uri: redis://127.0.0.1:6379/0\n  format: sidekiq\n"
                                      "  job_class: Billing::InvoiceJob\n  sidekiq_timestamps: ms\n");
    EXPECT_EQ(sidekiq.format, Format::sidekiq);
    EXPECT_EQ(sidekiq.task.job_class, "Billing::InvoiceJob");
    EXPECT_EQ(sidekiq.task.sidekiq_timestamps, SidekiqTimestamps::milliseconds);
    EXPECT_EQ(sidekiq.sink.queue, "") << "run_job gives it Sidekiq's default queue";
    const JobSpec celery = load_text(yaml_source + "sink:\n  uri: redis://127.0.0.1:6379/0\n  queue: billing\n"
                                     "  format: celery\n  task: billing.tasks.invoice\n");
    EXPECT_EQ(celery.format, Format::celery);
    EXPECT_EQ(celery.task.task, "billing.tasks.invoice");
    EXPECT_EQ(celery.sink.queue, "billing");
}

TEST(WorkerFormatTest, YamlJobRefusesAWorkerFormatWithoutItsClassAtItsLine) {
    try {
        load_text(yaml_source + "sink:\n  uri: redis://127.0.0.1:6379/0\n  format: sidekiq\n");
        FAIL() << "loaded a sidekiq job without a job class";
    } catch (const ConfigError& error) {
        EXPECT_EQ(error.line(), 6);
        // A job file names the key it takes, not the flag of backfill.
        EXPECT_NE(std::string(error.what())
                      .find("sink.format sidekiq needs the job class its workers run, e.g. Billing::InvoiceJob: give "
                            "it with sink.job_class"),
                  std::string::npos)
            << error.what();
    }
    try {
        load_text(yaml_source + "sink:\n  uri: redis://127.0.0.1:6379/0\n  format: celery\n  task: t\n  push: rpush\n");
        FAIL() << "loaded a celery job with a push side";
    } catch (const ConfigError& error) {
        EXPECT_EQ(error.line(), 8);
    }
    try {
        load_text(yaml_source + "sink:\n  uri: redis://127.0.0.1:6379/0\n  queue: q\n  job_class: lowercase\n");
        FAIL() << "loaded a json job with a job class";
    } catch (const ConfigError& error) {
        EXPECT_EQ(error.line(), 7);
    }
}

}  // namespace
}  // namespace rowpump

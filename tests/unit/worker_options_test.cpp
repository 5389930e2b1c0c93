// The worker options without a server: where each lands in the Sidekiq job or Celery message, how their
// text is read, and what is refused.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "backend/redis/redis_queue_keys.hpp"
#include "config/option_error.hpp"
#include "encode/task_envelope.hpp"
#include "encode/worker_options.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/enqueue.hpp"
#include "rowpump/error.hpp"
#include "test_columns.hpp"
#include "worker_tasks.hpp"

namespace rowpump {
namespace {

using namespace test;

constexpr std::int64_t now_us = 1'796'128'989'462'728;  // 2026-12-01 12:43:09.462728 UTC

const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("name", ColumnKind::text),
                                     column("price", ColumnKind::decimal)};

std::string encode(Format format, const TaskSpec& task) {
    std::string out;
    make_encoder(format, columns, task)->encode_task(test::one_row({"7", "Zo\xc3\xab", "1.50"}), 0, {now_us, 0, {}}, out);
    return out;
}

TEST(WorkerOptionsTest, SidekiqOptionsGoWhereSidekiqOptionsWouldPutThem) {
    TaskSpec task = sidekiq_task();
    read_sidekiq_retry("0", task.sidekiq);
    read_sidekiq_dead("false", task.sidekiq);
    task.sidekiq.tags = {"nightly", "a\"b"};
    read_sidekiq_fields({"source=etl", "note=x=y"}, task.sidekiq);
    for (const Format format : {Format::sidekiq, Format::activejob}) {
        const std::string job = encode(format, task);
        EXPECT_TRUE(job.starts_with("{\"retry\":0,\"queue\":\"invoices\",\"dead\":false,\"tags\":[\"nightly\","
                                    "\"a\\\"b\"],\"source\":\"etl\",\"note\":\"x=y\",\"class\":"))
            << job;
    }
    read_sidekiq_retry("false", task.sidekiq);
    EXPECT_TRUE(encode(Format::sidekiq, task).starts_with("{\"retry\":false,")) << "false, not a count";
    read_sidekiq_retry("true", task.sidekiq);
    EXPECT_TRUE(encode(Format::sidekiq, task).starts_with("{\"retry\":true,"));
}

TEST(WorkerOptionsTest, SidekiqOptionTextIsReadAsSidekiqReadsIt) {
    SidekiqJobOptions options;
    read_sidekiq_retry("25", options);
    EXPECT_TRUE(options.retry);
    EXPECT_EQ(options.retries, 25u);
    for (const char* bad : {"", "-1", "1.5", "yes", "5x", "99999999999"})
        EXPECT_THROW(read_sidekiq_retry(bad, options), UsageError) << bad;
    EXPECT_THROW(read_sidekiq_dead("no", options), UsageError);
    EXPECT_THROW(read_sidekiq_fields({"=v"}, options), UsageError);
    EXPECT_THROW(read_sidekiq_fields({"novalue"}, options), UsageError);
    for (const char* key : {"jid", "class", "args", "wrapped", "retry", "tags", "backtrace"}) {
        TaskSpec task = sidekiq_task();
        read_sidekiq_fields({std::string(key) + "=1"}, task.sidekiq);
        EXPECT_THROW(check_task_spec(Format::sidekiq, task), UsageError) << key;
    }
    TaskSpec twice = sidekiq_task();
    read_sidekiq_fields({"a=1", "a=2"}, twice.sidekiq);
    EXPECT_THROW(check_task_spec(Format::sidekiq, twice), UsageError);
}

TEST(WorkerOptionsTest, CeleryKwargsExpiresAndRoutingKeyAreInTheMessage) {
    TaskSpec task = celery_task();
    task.celery.kwargs = {"price", "name"};
    task.celery.expires_seconds = 60;
    task.celery.routing_key = "billing.invoice";
    const std::string text = encode(Format::celery, task);
    rapidjson::Document message;
    message.Parse(text.data(), text.size());
    ASSERT_FALSE(message.HasParseError()) << text;
    const std::string body = base64_decode(message["body"].GetString());
    EXPECT_EQ(body, "[[{\"id\":7}], {\"price\":1.50,\"name\":\"Zo\xc3\xab\"}, {\"callbacks\": null, \"errbacks\": null, "
                    "\"chain\": null, \"chord\": null}]");
    const auto& headers = message["headers"];
    EXPECT_STREQ(headers["expires"].GetString(), "2026-12-01T12:44:09.462000+00:00");
    EXPECT_STREQ(headers["argsrepr"].GetString(), "[{\"id\":7}]");
    EXPECT_STREQ(headers["kwargsrepr"].GetString(), "{\"price\":1.50,\"name\":\"Zo\xc3\xab\"}");
    EXPECT_STREQ(message["properties"]["delivery_info"]["routing_key"].GetString(), "billing.invoice");

    task.celery.kwargs = {"id", "name", "price"};
    const std::string all = encode(Format::celery, task);
    message.Parse(all.data(), all.size());
    EXPECT_TRUE(base64_decode(message["body"].GetString()).starts_with("[[], {\"id\":7,")) << "no row argument left";
}

// properties.priority, and the list of its kombu step (kombu/transport/redis.py: steps 0, 3, 6, 9, sep \x06\x16).
TEST(WorkerOptionsTest, CeleryPriorityIsInThePropertiesAndNamesItsStepsList) {
    TaskSpec task = celery_task();
    read_celery_priority("5", task.celery);
    const std::string text = encode(Format::celery, task);
    rapidjson::Document message;
    message.Parse(text.data(), text.size());
    ASSERT_FALSE(message.HasParseError()) << text;
    EXPECT_EQ(message["properties"]["priority"].GetInt(), 5);
    EXPECT_EQ(redis::celery_priority_list("q", 0), "q");
    EXPECT_EQ(redis::celery_priority_list("q", 2), "q");
    EXPECT_EQ(redis::celery_priority_list("q", 3), std::string("q\x06\x16") + "3");
    EXPECT_EQ(redis::celery_priority_list("q", 8), std::string("q\x06\x16") + "6");
    EXPECT_EQ(redis::celery_priority_list("q", 9), std::string("q\x06\x16") + "9");
    read_celery_priority("", task.celery);
    EXPECT_FALSE(task.celery.priority) << "none given";
    EXPECT_THROW(read_celery_priority("10", task.celery), UsageError);
    EXPECT_THROW(read_celery_priority("-1", task.celery), UsageError);
    TaskSpec sidekiq;
    sidekiq.job_class = "A";
    sidekiq.celery.priority = 3;
    EXPECT_THROW(check_task_spec(Format::sidekiq, sidekiq), UsageError);
}

// A row's own priority (TaskTimes::priority, from --celery-priority-column) is the message's, not the task's.
TEST(WorkerOptionsTest, CeleryRowPriorityIsThePropertiesPriority) {
    TaskSpec task = celery_task();
    task.celery.priority_column = "urgency";
    const auto envelope = make_task_envelope(Format::celery, task);
    for (const unsigned priority : {0u, 4u, 9u}) {
        TaskTimes times;
        times.priority = priority;
        std::string text;
        envelope->wrap("{\"id\":1}", times, text);
        rapidjson::Document message;
        message.Parse(text.data(), text.size());
        ASSERT_FALSE(message.HasParseError()) << text;
        EXPECT_EQ(message["properties"]["priority"].GetInt(), static_cast<int>(priority));
    }
}

// Both priority options, or the column with another format: one line naming them, exit 2 (OptionError).
TEST(WorkerOptionsTest, CeleryPriorityColumnIsRefusedWithTheFixedPriorityOrAnotherFormat) {
    TaskSpec task = celery_task();
    task.celery.priority_column = "urgency";
    EXPECT_NO_THROW(check_worker_options(Format::celery, task));
    EXPECT_NE(worker_options_text(task).find("priority-column urgency"), std::string::npos);
    task.celery.priority = 3;
    try {
        check_worker_options(Format::celery, task);
        FAIL() << "both accepted";
    } catch (const config::OptionError& error) {
        EXPECT_NE(std::string(error.what()).find("--celery-priority and --celery-priority-column are both given"),
                  std::string::npos)
            << error.what();
    }
    TaskSpec sidekiq;
    sidekiq.job_class = "A";
    sidekiq.celery.priority_column = "urgency";
    EXPECT_THROW(check_worker_options(Format::sidekiq, sidekiq), config::OptionError);
}

TEST(WorkerOptionsTest, BulkEnqueueHasNoColumnsForKwargs) {
    SinkSpec sink;
    sink.uri = "stdout";
    TaskSpec task = celery_task();
    task.celery.kwargs = {"name"};
    EXPECT_THROW(BulkEnqueuer(sink, Format::celery, task), UsageError);
    task.celery.kwargs.clear();
    task.celery.priority_column = "urgency";
    EXPECT_THROW(BulkEnqueuer(sink, Format::celery, task), UsageError);
}

TEST(WorkerOptionsTest, EachOptionIsRefusedByTheFormatsThatDoNotReadIt) {
    TaskSpec tagged = celery_task();
    tagged.sidekiq.tags = {"a"};
    EXPECT_THROW(check_task_spec(Format::celery, tagged), UsageError);
    TaskSpec expiring = sidekiq_task();
    expiring.celery.expires_seconds = 5;
    EXPECT_THROW(check_task_spec(Format::sidekiq, expiring), UsageError);
    TaskSpec routed = sidekiq_task();
    routed.celery.routing_key = "k";
    EXPECT_THROW(check_task_spec(Format::activejob, routed), UsageError);
    TaskSpec spaced = celery_task();
    spaced.celery.routing_key = "a b";
    EXPECT_THROW(check_task_spec(Format::celery, spaced), UsageError);
    TaskSpec unknown = celery_task();
    unknown.celery.kwargs = {"nope"};
    EXPECT_THROW(make_encoder(Format::celery, columns, unknown), UsageError);
    TaskSpec plain = sidekiq_task();
    EXPECT_EQ(worker_options_text(plain), "") << "defaults add nothing to a job's definition";
    read_sidekiq_retry("3", plain.sidekiq);
    EXPECT_EQ(worker_options_text(plain), " retry 3");
}

}  // namespace
}  // namespace rowpump

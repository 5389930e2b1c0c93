// --format activejob without a server: the Sidekiq job of ActiveJob's adapter byte for byte (keys in the
// order Sidekiq and ActiveJob 6.1 write them), the row in ActiveJob's argument serialization, scheduled
// jobs, and the refusals.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;

constexpr std::int64_t now_us = 1'796'128'989'462'728;  // 2026-12-01 12:43:09.462728 UTC

TaskSpec activejob_task() {
    TaskSpec task;
    task.job_class = "Billing::InvoiceJob";
    task.queue = "invoices";
    return task;
}

Column timestamp_column(const std::string& name) {
    Column stamp = column(name, ColumnKind::datetime);
    stamp.column_type = "timestamp(6)";
    return stamp;
}

const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("name", ColumnKind::text),
                                     column("price", ColumnKind::decimal),        column("data", ColumnKind::binary),
                                     column("seen", ColumnKind::datetime),        timestamp_column("stamp"),
                                     column("born", ColumnKind::date),            column("zero", ColumnKind::datetime),
                                     column("at", ColumnKind::time),              column("none", ColumnKind::text)};

std::string encode(TaskTimes times) {
    const Page page = test::one_row({"7", "Zo\xc3\xab \"q\"\n", "-12.50", std::string("\0\xff", 2),
                                     "2024-05-01 12:00:00.25", "2030-01-02 03:04:05", "1990-01-31",
                                     "0000-00-00 00:00:00", "12:30:00", std::nullopt});
    std::string out;
    make_encoder(Format::activejob, columns, activejob_task())->encode_task(page, 0, times, out);
    return out;
}

// The job with its random ids (jid, job_id) replaced by placeholders.
std::string without_ids(std::string job) {
    job = std::regex_replace(job, std::regex("\"jid\":\"[0-9a-f]{24}\""), "\"jid\":\"JID\"");
    return std::regex_replace(job, std::regex("\"job_id\":\"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                              "[0-9a-f]{12}\""),
                              "\"job_id\":\"UUID\"");
}

const std::string serialized_row =
    "{\"id\":7,\"name\":\"Zo\xc3\xab \\\"q\\\"\\n\","
    "\"price\":{\"_aj_serialized\":\"ActiveJob::Serializers::BigDecimalSerializer\",\"value\":\"-12.50\"},"
    "\"data\":\"AP8=\","
    "\"seen\":{\"_aj_serialized\":\"ActiveJob::Serializers::TimeWithZoneSerializer\","
    "\"value\":\"2024-05-01T12:00:00.250000000Z\"},"
    "\"stamp\":{\"_aj_serialized\":\"ActiveJob::Serializers::TimeWithZoneSerializer\","
    "\"value\":\"2030-01-02T03:04:05.000000000Z\"},"
    "\"born\":{\"_aj_serialized\":\"ActiveJob::Serializers::DateSerializer\",\"value\":\"1990-01-31\"},"
    "\"zero\":\"0000-00-00 00:00:00\",\"at\":\"12:30:00\",\"none\":null,\"_aj_symbol_keys\":[]}";

TEST(ActiveJobFormatTest, ReadyJobIsWhatTheSidekiqAdapterPushes) {
    EXPECT_EQ(without_ids(encode({now_us, 0, {}})),
              "{\"retry\":true,\"queue\":\"invoices\",\"class\":\"ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper\","
              "\"wrapped\":\"Billing::InvoiceJob\",\"args\":[{\"job_class\":\"Billing::InvoiceJob\",\"job_id\":\"UUID\","
              "\"provider_job_id\":null,\"queue_name\":\"invoices\",\"priority\":null,\"arguments\":[" +
                  serialized_row +
                  "],\"executions\":0,\"exception_executions\":{},\"locale\":\"en\",\"timezone\":\"UTC\","
                  "\"enqueued_at\":\"2026-12-01T12:43:09.462728000Z\"}],\"jid\":\"JID\","
                  "\"created_at\":1796128989.462728,\"enqueued_at\":1796128989.462728}");
}

TEST(ActiveJobFormatTest, ScheduledJobCarriesScheduledAtAndNoSidekiqEnqueuedAt) {
    const std::string job = encode({now_us, 1'796'129'000'250, {}});
    EXPECT_NE(job.find("\"enqueued_at\":\"2026-12-01T12:43:09.462728000Z\",\"scheduled_at\":"
                       "\"2026-12-01T12:43:20.250000000Z\"}]"),
              std::string::npos)
        << job;
    EXPECT_TRUE(job.ends_with(",\"created_at\":1796128989.462728}")) << "Sidekiq's poller adds enqueued_at: " << job;
}

TEST(ActiveJobFormatTest, EachJobHasItsOwnIds) {
    const Page page = test::one_row({"1"});
    const auto encoder = make_encoder(Format::activejob, {column("id", ColumnKind::signed_integer)}, activejob_task());
    std::string first;
    std::string second;
    encoder->encode_task(page, 0, {now_us, 0, {}}, first);
    encoder->encode_task(page, 0, {now_us, 0, {}}, second);
    const std::regex ids("\"job_id\":\"([^\"]+)\".*\"jid\":\"([0-9a-f]{24})\"");
    std::smatch a;
    std::smatch b;
    ASSERT_TRUE(std::regex_search(first, a, ids)) << first;
    ASSERT_TRUE(std::regex_search(second, b, ids)) << second;
    EXPECT_NE(a[1].str(), b[1].str());
    EXPECT_NE(a[2].str(), b[2].str());
}

TEST(ActiveJobFormatTest, WhatActiveJobCannotReadIsRefused) {
    EXPECT_THROW(make_encoder(Format::activejob, columns, TaskSpec{}), UsageError) << "no job class";
    TaskSpec lower = activejob_task();
    lower.job_class = "billing::Job";
    EXPECT_THROW(make_encoder(Format::activejob, columns, lower), UsageError);
    EXPECT_THROW(make_encoder(Format::activejob, {column("_aj_symbol_keys", ColumnKind::text)}, activejob_task()),
                 UsageError);
    PayloadOptions embed;
    embed.json_columns = JsonColumns::embed;
    EXPECT_THROW(make_encoder(Format::activejob, columns, activejob_task(), embed), UsageError);
    EXPECT_EQ(parse_format("activejob"), Format::activejob);
    EXPECT_EQ(queue_layout(Format::activejob), QueueLayout::sidekiq);
    EXPECT_EQ(default_queue(Format::activejob), "default");
}

}  // namespace
}  // namespace rowpump

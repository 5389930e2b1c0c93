// --format bullmq without a server: what the encoder hands the Redis writer ("<id>\n<name>\n<data>", the
// data the json format's row byte for byte), ids from --bullmq-job-id, and what BullMQ would refuse.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/option_error.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;

const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("name", ColumnKind::text),
                                     column("code", ColumnKind::text)};

TaskSpec bullmq_task(const std::string& id_template = {}) {
    TaskSpec task;
    task.bullmq.job_name = "sync row";
    task.bullmq.job_id = id_template;
    return task;
}

std::string encode(const TaskSpec& task, std::vector<std::optional<std::string>> row) {
    const Page page = test::one_row(row);
    std::string out;
    make_encoder(Format::bullmq, columns, task)->encode(page, 0, out);
    return out;
}

TEST(BullmqFormatTest, JobPartsAreIdNameAndTheRowsJson) {
    const std::vector<std::optional<std::string>> row{"7", "Zo\xc3\xab \"q\"\n", std::nullopt};
    std::string json;
    make_encoder(Format::json, columns)->encode(test::one_row(row), 0, json);
    EXPECT_EQ(encode(bullmq_task(), row), "\nsync row\n" + json) << "no id: BullMQ's counter";
    EXPECT_EQ(encode(bullmq_task("order-{id}"), row), "order-7\nsync row\n" + json);
    EXPECT_EQ(encode(bullmq_task("{code}"), {"7", "x", "A-12"}).substr(0, 5), "A-12\n");
    EXPECT_EQ(queue_layout(Format::bullmq), QueueLayout::bullmq);
    EXPECT_EQ(parse_format("bullmq"), Format::bullmq);
}

TEST(BullmqFormatTest, RefusesWhatBullmqWouldNotRead) {
    EXPECT_THROW(make_encoder(Format::bullmq, columns, TaskSpec{}), config::OptionError) << "no job name";
    EXPECT_THROW(make_encoder(Format::bullmq, columns, bullmq_task("{nope}")), config::OptionError);
    EXPECT_THROW(make_encoder(Format::bullmq, columns, bullmq_task("fixed")), config::OptionError);
    EXPECT_THROW(make_encoder(Format::bullmq, columns, bullmq_task("{id}")), config::OptionError) << "integer ids";
    EXPECT_THROW(make_encoder(Format::bullmq, columns, bullmq_task("a:{id}")), config::OptionError);
    EXPECT_THROW(make_encoder(Format::bullmq, columns, bullmq_task("{id")), UsageError);
    TaskSpec control = bullmq_task();
    control.bullmq.job_name = "a\nb";
    EXPECT_THROW(make_encoder(Format::bullmq, columns, control), config::OptionError);
    TaskSpec json_with_name = bullmq_task();
    EXPECT_THROW(make_encoder(Format::json, columns, json_with_name), config::OptionError);
    // Per row: a value BullMQ would refuse in an id fails the run, naming the column.
    EXPECT_THROW(encode(bullmq_task("{code}"), {"1", "x", std::nullopt}), UsageError);
    EXPECT_THROW(encode(bullmq_task("{code}"), {"1", "x", "a:b"}), UsageError);
    EXPECT_THROW(encode(bullmq_task("{code}"), {"1", "x", "42"}), UsageError) << "an integer id";
    EXPECT_NO_THROW(encode(bullmq_task("{code}"), {"1", "x", "042"})) << "parseInt('042') is 42, not '042'";
}

}  // namespace
}  // namespace rowpump

// The fields run_job and BulkEnqueuer derive (a sink's layout and priority lists, a task's queue) are
// filled in only where the caller left them unset or in agreement; a caller's value that disagrees is
// refused with a UsageError that names the field, not replaced behind the caller's back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/derived_fields.hpp"
#include "rowpump/error.hpp"

namespace rowpump::test {
namespace {

std::string refusal(const SinkSpec& sink, Format format, const TaskSpec& task,
                    const std::vector<std::string>* levels) {
    try {
        check_derived_fields(sink, format, task, levels);
    } catch (const UsageError& error) {
        return error.what();
    }
    return "";
}

TEST(DerivedFields, UnsetOrAgreeingFieldsAreAccepted) {
    SinkSpec sink;
    sink.queue = "mail";
    const std::vector<std::string> levels{"high", "low"};
    EXPECT_EQ(refusal(sink, Format::json, {}, &levels), "");
    sink.priority_lists = levels;
    sink.layout = QueueLayout::sidekiq;
    TaskSpec task;
    task.queue = "mail";
    EXPECT_EQ(refusal(sink, Format::sidekiq, task, &levels), "");
    SinkSpec unnamed;
    task.queue = "celery";  // the sink names no queue: Celery's own
    EXPECT_EQ(refusal(unnamed, Format::celery, task, nullptr), "");
}

TEST(DerivedFields, ALayoutOtherThanTheFormatsIsRefused) {
    SinkSpec sink;
    sink.layout = QueueLayout::celery;
    EXPECT_NE(refusal(sink, Format::json, {}, nullptr).find("SinkSpec::layout comes from the format (json)"),
              std::string::npos);
    EXPECT_NE(refusal(sink, Format::sidekiq, {}, nullptr), "");
}

TEST(DerivedFields, PriorityListsOtherThanTheRoutesAreRefusedUnlessTheyAreTheCallers) {
    SinkSpec sink;
    sink.priority_lists = {"urgent"};
    const std::vector<std::string> levels{"high", "low"};
    EXPECT_NE(refusal(sink, Format::json, {}, &levels).find("(urgent) come from the route's levels (high,low)"),
              std::string::npos);
    const std::vector<std::string> none;
    EXPECT_NE(refusal(sink, Format::json, {}, &none), "");
    EXPECT_EQ(refusal(sink, Format::json, {}, nullptr), "");  // BulkEnqueuer: the caller's lists are used
}

TEST(DerivedFields, ATaskQueueOtherThanTheSinksIsRefused) {
    SinkSpec sink;
    sink.queue = "mail";
    TaskSpec task;
    task.queue = "invoices";
    EXPECT_NE(refusal(sink, Format::sidekiq, task, nullptr).find("TaskSpec::queue ('invoices') is the sink's queue ('mail')"),
              std::string::npos);
    SinkSpec unnamed;
    EXPECT_NE(refusal(unnamed, Format::sidekiq, task, nullptr).find("('default')"), std::string::npos);
}

}  // namespace
}  // namespace rowpump::test

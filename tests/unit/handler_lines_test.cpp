// The line protocol of --pipe and --exec-batch handlers (handler/task_lines.hpp) and how a consumer's
// command line is started (process/command_argv.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "handler/task_lines.hpp"
#include "process/command_argv.hpp"

namespace rowpump {
namespace {

using Kind = TaskResult::Kind;
using std::chrono::milliseconds;

std::string line_of(std::uint64_t id, int attempt, std::string_view queue, std::string_view payload) {
    TaskContext task;
    task.id = id;
    task.attempt = attempt;
    task.queue = queue;
    task.payload = payload;
    std::string out;
    handler::append_task_line(task, out);
    return out;
}

TEST(TaskLine, AJsonPayloadIsEmbeddedAsTheValueItIsOnOneLine) {
    EXPECT_EQ(line_of(42, 2, "mail", "{\"email_id\": 7,\n \"big\": 12345678901234567890}"),
              "{\"id\":42,\"attempt\":2,\"queue\":\"mail\",\"payload\":{\"email_id\":7,\"big\":12345678901234567890}}\n");
    EXPECT_EQ(line_of(0, 1, "q", "17"), "{\"id\":null,\"attempt\":1,\"queue\":\"q\",\"payload\":17}\n");
}

TEST(TaskLine, APayloadThatIsNotJsonComesAsAString) {
    EXPECT_EQ(line_of(0, 1, "q\"1", "user@example.com\nsecond line"),
              "{\"id\":null,\"attempt\":1,\"queue\":\"q\\\"1\",\"payload\":\"user@example.com\\nsecond line\"}\n");
    EXPECT_EQ(line_of(0, 1, "q", "{\"a\":1} trailing"), "{\"id\":null,\"attempt\":1,\"queue\":\"q\",\"payload\":\"{\\\"a\\\":1} trailing\"}\n");
}

TEST(ResultLine, EachVerbWithItsDelayAndReason) {
    auto ok = handler::parse_result_line("ok\r");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->kind, Kind::ok);

    auto retry = handler::parse_result_line("retry 2.5 the mail server said 421");
    ASSERT_TRUE(retry);
    EXPECT_EQ(retry->kind, Kind::retry);
    EXPECT_EQ(retry->delay, milliseconds(2500));
    EXPECT_EQ(retry->reason, "the mail server said 421");

    // No delay: the queue's own backoff, as for fail; a first word that is not a number is the reason.
    auto backoff = handler::parse_result_line("retry busy now");
    ASSERT_TRUE(backoff);
    EXPECT_EQ(backoff->kind, Kind::fail);
    EXPECT_EQ(backoff->reason, "busy now");

    auto fail = handler::parse_result_line("fail");
    ASSERT_TRUE(fail);
    EXPECT_EQ(fail->kind, Kind::fail);
    EXPECT_EQ(fail->reason, "its handler answered fail");

    auto dead = handler::parse_result_line("dead  no such user ");
    ASSERT_TRUE(dead);
    EXPECT_EQ(dead->kind, Kind::dead);
    EXPECT_EQ(dead->reason, "no such user");
}

TEST(ResultLine, AnythingElseIsNotAResult) {
    for (const char* line : {"", "OK", "ok then", "okay", "done", "{\"ok\":true}", " maybe", "retry-later"})
        EXPECT_FALSE(handler::parse_result_line(line)) << line;
    // A delay that is no number of seconds is part of the reason, never a wait of years.
    auto huge = handler::parse_result_line("retry 1e12");
    ASSERT_TRUE(huge);
    EXPECT_EQ(huge->kind, Kind::fail);
}

TEST(CommandArgv, APlainCommandStartsWithoutAShell) {
    EXPECT_EQ(process::command_argv("php handler.php --queue=mail"),
              (std::vector<std::string>{"php", "handler.php", "--queue=mail"}));
    EXPECT_EQ(process::command_argv("  true  "), (std::vector<std::string>{"true"}));
}

TEST(CommandArgv, ShellSyntaxRunsThroughTheShellAsWritten) {
    for (const char* command : {"echo 'a b'", "cat > out", "a | b", "FOO=1 cmd", "echo $HOME", "ls *.php", "~/bin/x",
                                "a; b", "a && b", "echo \"x\"", "x\\ y", "", "exit 7", "cd /tmp", ". ./env",
                                "  exit", "export A=1", "{ a"}) {
        const std::vector<std::string> argv = process::command_argv(command);
        EXPECT_EQ(argv, (std::vector<std::string>{"/bin/sh", "-c", command})) << command;
    }
}

}  // namespace
}  // namespace rowpump

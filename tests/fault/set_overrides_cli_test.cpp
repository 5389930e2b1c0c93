// `rowpump run JOB.yaml --set PATH=VALUE` as a user runs it: every override is checked against the option
// schema before anything connects. The job's servers are unreachable ports here, so an override that got
// past the checks would end in "cannot connect" (exit 1); a refused one exits 2 with one line that says
// what is wrong, where (the --set), and what to give instead.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"

namespace rowpump::test {
namespace {

class SetOverridesCliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::ofstream(job_) << "source:\n  mysql: mysql://nobody@127.0.0.1:1/none\n  table: orders\n  key: [id]\n"
                               "sink:\n  uri: redis://127.0.0.1:1/0\n  queue: orders\n";
    }
    void TearDown() override { std::remove(job_.c_str()); }

    CliRun run(const std::vector<std::string>& overrides, const std::string& command = "run") const {
        std::vector<std::string> args{command, job_};
        for (const auto& text : overrides) args.insert(args.end(), {"--set", text});
        if (command == "run") args.push_back("--dry-run");
        return run_rowpump(args);
    }

    // Exit 2, nothing on stdout, and exactly one line on stderr: the job file, the override, and `message`.
    void expect_refused(const std::vector<std::string>& overrides, const std::string& message,
                        const std::string& command = "run") const {
        SCOPED_TRACE(command + " --set " + overrides.back());
        const CliRun result = run(overrides, command);
        EXPECT_EQ(result.exit_code, 2) << result.err;
        EXPECT_EQ(result.out, "");
        ASSERT_EQ(lines(result.err).size(), 1u) << result.err;
        EXPECT_EQ(result.err, "rowpump: error: " + job_ + ": --set " + overrides.back() + ": " + message + "\n");
    }

    const std::string job_ = temp_file("set_overrides") + ".yaml";
};

TEST_F(SetOverridesCliTest, AnUnknownPathNamesTheOptionMeant) {
    expect_refused({"sourc.page_size=500"},
                   "'sourc.page_size' is not an option of a job file; did you mean 'source.page_size'?");
    expect_refused({"page_size=500"}, "'page_size' is not an option of a job file; did you mean 'source.page_size'?");
    expect_refused({"format=csv"}, "'format' is not an option of a job file; did you mean 'sink.format'?");
    expect_refused({"source.mysql.port=3306"},
                   "'source.mysql' holds a single value, not a map: cannot set 'port' inside it");
    expect_refused({"nonsense=1"}, "'nonsense' is not an option of a job file: give a path such as source.page_size, "
                                   "sink.queue or workers (jobs/README.md lists them)");
    expect_refused({"sourc.page_size=500"},
                   "'sourc.page_size' is not an option of a job file; did you mean 'source.page_size'?", "explain");
}

TEST_F(SetOverridesCliTest, AFlagOfTheCommandLineSaysWhereItGoes) {
    expect_refused({"resume=true"}, "'resume' is not in a job file: --resume is an option of the command line: give "
                                    "it to rowpump run (rowpump run JOB.yaml --resume)");
    expect_refused({"source.read_timeout=5"},
                   "'source.read_timeout' is not in a job file: --read-timeout is an option of the command line; in a "
                   "job file it is a parameter of the source URL, e.g. --set "
                   "source.mysql=mysql://user@host/db?read_timeout=10");
    expect_refused({"retry_budget=5"}, "'retry_budget' is not in a job file: --retry-budget is an option of the "
                                       "command line (rowpump backfill --retry-budget), which a job file does not take");
}

TEST_F(SetOverridesCliTest, ABadValueIsRefusedWithTheOptionsBounds) {
    expect_refused({"workers=0"}, "expected a whole number from 1 to 256, got '0'");
    expect_refused({"source.page_size=-1"}, "expected a whole number from 1 to 1000000, got '-1'");
    expect_refused({"sink.delay_score=seconds"}, "expected one of ms, s, got 'seconds'");
    expect_refused({"limits.rate=0.5"}, "expected 0 or a number from 1 to 1000000000, got '0.5'");
    expect_refused({"follow=yes"}, "expected one of true, false, got 'yes'");
}

// Overrides the schema knows get past the checks: the run goes on to connect, and fails there (exit 1).
TEST_F(SetOverridesCliTest, KnownPathsReachTheServers) {
    const std::vector<std::vector<std::string>> accepted = {
        {"source.page_size=500", "workers=2"},
        {"sink.format=template", "sink.template={id}"},  // one text value: "{id}" is the template, not a map
        {"source.key=[id]"},                             // a list, whole
        {"source.key.0=id"},                             // or one of its items
        {"partitions={count: 2}"},                       // a section as a map
    };
    for (const auto& overrides : accepted) {
        SCOPED_TRACE(overrides.back());
        const CliRun result = run(overrides);
        EXPECT_EQ(result.exit_code, 1) << result.err;
        EXPECT_NE(result.err.find("cannot connect to MySQL"), std::string::npos) << result.err;
    }
}

}  // namespace
}  // namespace rowpump::test

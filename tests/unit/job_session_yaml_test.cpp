// The session settings of a job file: source.set_vars and source.consistent_snapshot reach the JobSpec,
// and a bad variable is a ConfigError at its field. No server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

// A job file reading orders to stdout, with `source_lines` added to its source section.
test::TempFile job_file(const std::string& source_lines) {
    return test::TempFile("source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders\n" + source_lines +
                              "sink:\n  uri: stdout\n",
                          ".yaml");
}

TEST(JobSessionYaml, SetVarsAndConsistentSnapshotReachTheSpec) {
    const test::TempFile job = job_file("  set_vars: \"innodb_lock_wait_timeout=5, max_statement_time=30\"\n"
                       "  consistent_snapshot: true\n");
    const JobSpec spec = load_job(job.path());
    EXPECT_EQ(spec.mysql.session_variables,
              (std::vector<std::pair<std::string, std::string>>{{"innodb_lock_wait_timeout", "5"},
                                                                {"max_statement_time", "30"}}));
    EXPECT_TRUE(spec.consistent_snapshot);
    const JobSpec plain = load_job(job_file("").path());
    EXPECT_TRUE(plain.mysql.session_variables.empty());
    EXPECT_FALSE(plain.consistent_snapshot);
}

TEST(JobSessionYaml, ABadVariableIsAConfigErrorAtItsField) {
    const test::TempFile job = job_file("  set_vars: \"sql_mode=a'b\"\n");
    try {
        load_job(job.path());
        ADD_FAILURE() << "loaded a job with a bad set_vars";
    } catch (const ConfigError& error) {
        EXPECT_EQ(error.line(), 4);
        EXPECT_EQ(error.column(), 13);
        EXPECT_NE(std::string(error.what()).find("invalid value 'a'b' for session variable sql_mode in set_vars"),
                  std::string::npos)
            << error.what();
        EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
    }
}

TEST(JobSessionYaml, SetOverridesReachSetVars) {
    const test::TempFile job = job_file("");
    const JobSpec spec = load_job(job.path(), {"source.set_vars=innodb_lock_wait_timeout=2"});
    EXPECT_EQ(spec.mysql.session_variables,
              (std::vector<std::pair<std::string, std::string>>{{"innodb_lock_wait_timeout", "2"}}));
}

}  // namespace
}  // namespace rowpump

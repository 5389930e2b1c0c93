// `rowpump read --first/--after` and `--last/--before`: rows as `read` prints them, the page info as one
// JSON object, and one line with exit 2 for each thing that cannot work (no key, a bad token, flags that
// do not go together).
#include <gtest/gtest.h>

#include "integration/cli_process.hpp"
#include "integration/cursor_fixture.hpp"

namespace rowpump::test {
namespace {

class CursorCliTest : public CursorTest {
protected:
    EnvOverride with_key() const { return {{"ROWPUMP_CURSOR_KEY", key()}, {"ROWPUMP_CURSOR_KEY_FILE", std::nullopt}}; }

    CliRun read(std::vector<std::string> extra, const EnvOverride& env) {
        std::vector<std::string> args{"read", "--mysql", mysql_url_, "--table", table_, "--columns", "id,created_at",
                                      "--sort", "created_at DESC, id DESC"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_rowpump(args, env);
    }

    // The value of "name" in the one-line JSON object `json`, as its text ("true", "\"abc\"", "null").
    static std::string field(const std::string& json, const std::string& name) {
        const std::size_t at = json.find("\"" + name + "\":");
        if (at == std::string::npos) return "missing";
        const std::size_t start = at + name.size() + 3;
        return json.substr(start, json.find_first_of(",}", start) - start);
    }
    static std::string unquoted(const std::string& text) { return text.size() >= 2 ? text.substr(1, text.size() - 2) : text; }
};

TEST_F(CursorCliTest, NextAndPreviousPagesWithPageInfo) {
    const std::string info = temp_file("page_info.json");
    const CliRun first = read({"--first", "3", "--page-info", info}, with_key());
    ASSERT_EQ(first.exit_code, 0) << first.describe();
    const auto expected = expected_ids("created_at DESC, id DESC");
    ASSERT_EQ(lines(first.out).size(), 3u) << first.describe();
    EXPECT_EQ(lines(first.out)[0].find("{\"id\":" + expected[0] + ","), 0u) << first.out;
    const std::string page1 = slurp(info);
    EXPECT_EQ(field(page1, "has_next_page"), "true");
    EXPECT_EQ(field(page1, "has_previous_page"), "false");
    EXPECT_EQ(field(page1, "page_number"), "1");

    const CliRun second = read({"--first", "3", "--after", unquoted(field(page1, "end_cursor")), "--page-info", info}, with_key());
    ASSERT_EQ(second.exit_code, 0) << second.describe();
    EXPECT_EQ(lines(second.out)[0].find("{\"id\":" + expected[3] + ","), 0u) << second.out;
    const std::string page2 = slurp(info);
    EXPECT_EQ(field(page2, "has_previous_page"), "true");
    EXPECT_EQ(field(page2, "page_number"), "2");

    const CliRun back = read({"--last", "3", "--before", unquoted(field(page2, "start_cursor")), "--page-info", info}, with_key());
    ASSERT_EQ(back.exit_code, 0) << back.describe();
    EXPECT_EQ(back.out, first.out);
    EXPECT_EQ(field(slurp(info), "has_previous_page"), "false");

    const CliRun jumped = read({"--first", "3", "--page", "2"}, with_key());
    EXPECT_EQ(jumped.out, second.out) << jumped.describe();

    // 2000 rows are within one bookmark's span: the approximate jump walks from the start, exactly.
    const CliRun about = read({"--first", "3", "--page", "2", "--approximate", "--page-info", info}, with_key());
    EXPECT_EQ(about.out, second.out) << about.describe();
    EXPECT_EQ(field(slurp(info), "method"), "\"approximate\"");
    EXPECT_NE(field(slurp(info), "total_rows_estimate"), "missing");
}

TEST_F(CursorCliTest, WhatCannotWorkIsOneLineAndExitTwo) {
    const EnvOverride no_key{{"ROWPUMP_CURSOR_KEY", std::nullopt}, {"ROWPUMP_CURSOR_KEY_FILE", std::nullopt}};
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--first", "3"}, "ROWPUMP_CURSOR_KEY"},
        {{"--last", "3"}, "ROWPUMP_CURSOR_KEY"},
    };
    for (const auto& [extra, says] : cases) {
        const CliRun run = read(extra, no_key);
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        EXPECT_EQ(lines(run.err).size(), 1u) << run.describe();
        EXPECT_NE(run.err.find(says), std::string::npos) << run.describe();
        EXPECT_EQ(run.out, "");
    }
    const std::vector<std::pair<std::vector<std::string>, std::string>> with_key_cases{
        {{"--first", "3", "--after", "garbage!"}, "not a rowpump token"},
        {{"--last", "3", "--after", "x"}, "--after goes with --first"},
        {{"--first", "3", "--where", "id > 3"}, "--filter"},
        {{"--first", "3", "--filter", "nope"}, "COLUMN=VALUE"},
        {{"--first", "3", "--approximate"}, "--approximate goes with --page"},
    };
    for (const auto& [extra, says] : with_key_cases) {
        const CliRun run = read(extra, with_key());
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        EXPECT_EQ(lines(run.err).size(), 1u) << run.describe();
        EXPECT_NE(run.err.find(says), std::string::npos) << run.describe();
    }
}

}  // namespace
}  // namespace rowpump::test

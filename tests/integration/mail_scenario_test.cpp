// The mail scenario of examples/mail/, end to end with the real CLI: the example's SQL makes the emails,
// `rowpump backfill --format template --template '{email_id}'` queues their ids in Redis, and `rowpump
// queue consume --pipe 'php send_mail.php' --concurrency 2 --until-empty` sends them. Mid-run the test
// kills each handler's MySQL connection: every email must still be sent, nothing left in the queue, and
// each handler must have carried on over a new connection. The tables are the example's, renamed
// rp_test_mail_log_<pid> and rp_test_mail_sent_<pid>.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/prepared_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

std::string source_file(const std::string& relative) { return std::string(ROWPUMP_SOURCE_DIR) + "/" + relative; }

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
}

class MailScenarioTest : public Prepared<MySqlRedisTest> {
protected:
    void prepare() override {
        drop_tables();  // a leftover of an earlier run with the same pid
        // examples/mail/schema.sql as shipped, but for the names: its statements end with ';' at a line's end.
        std::string sql = slurp(source_file("examples/mail/schema.sql"));
        ASSERT_NE(sql.find("CREATE TABLE sys_email_sent"), std::string::npos) << "examples/mail/schema.sql is missing";
        sql = replace_all(replace_all(sql, "sys_email_log", log_), "sys_email_sent", sent_);
        for (std::size_t start = 0, end; (end = sql.find(";\n", start)) != std::string::npos; start = end + 2)
            tables().connection().execute_text(sql.substr(start, end - start));
        emails_ = ids("SELECT CAST(email_id AS CHAR) FROM " + log_ + " ORDER BY email_id");
        ASSERT_GE(emails_.size(), 1000u) << "the example's SQL made too few emails to kill a connection mid-run";
    }
    void TearDown() override {
        if (tables_) drop_tables();
        MySqlRedisTest::TearDown();
    }

    void drop_tables() { tables().connection().execute_text("DROP TABLE IF EXISTS " + log_ + ", " + sent_); }

    // The first column of a query's rows.
    std::vector<std::string> ids(const std::string& sql) {
        std::vector<std::string> out;
        for (const Row& row : tables().rows(sql)) out.push_back(row.at(0).value_or("NULL"));
        return out;
    }

    // Handler pid -> the connection ids it sent mails over.
    std::map<std::string, std::set<std::string>> connections_by_handler() {
        std::map<std::string, std::set<std::string>> out;
        const std::string sql =
            "SELECT DISTINCT CAST(handler_pid AS CHAR), CAST(connection_id AS CHAR) FROM " + sent_;
        for (const Row& row : tables().rows(sql))
            out[row.at(0).value_or("")].insert(row.at(1).value_or(""));
        return out;
    }

    // What send_mail.php reads from its environment: the test's database, the test's tables.
    EnvOverride handler_environment() const {
        const std::string where = options().socket.empty()
                                      ? "host=" + options().host + ";port=" + std::to_string(options().port)
                                      : "unix_socket=" + options().socket;
        return {{"MAIL_DB_DSN", "mysql:" + where + ";dbname=" + options().database},
                {"MAIL_DB_USER", options().user},
                {"MAIL_DB_PASSWORD", options().password},
                {"MAIL_LOG_TABLE", log_},
                {"MAIL_SENT_TABLE", sent_},
                {"MAIL_SEND_DELAY_MS", "1"}};  // 3000 mails on 2 handlers take about 2 s: time to kill mid-run
    }

    const std::string log_ = "rp_test_mail_log_" + std::to_string(::getpid());
    const std::string sent_ = "rp_test_mail_sent_" + std::to_string(::getpid());
    std::vector<std::string> emails_;
};

TEST_F(MailScenarioTest, EveryEmailIsSentAlthoughEachHandlersConnectionIsKilledMidRun) {
    const CliRun backfill = run_rowpump({"backfill", "--mysql", mysql_url_, "--table", log_, "--sink", redis_url_,
                                         "--queue", queue_, "--format", "template", "--template", "{email_id}", "-q"});
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    std::vector<std::string> queued = list_items(*redis_, queue_);
    std::sort(queued.begin(), queued.end());
    std::vector<std::string> expected = emails_;
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(queued, expected) << "the queue does not hold each email id once";

    CliProcess consumer({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--pipe",
                         "php " + source_file("examples/mail/send_mail.php"), "--concurrency", "2", "--until-empty"},
                        handler_environment());
    // Both handlers have sent a mail: each one's connection is known by the rows it wrote.
    std::map<std::string, std::set<std::string>> before;
    ASSERT_TRUE(wait_until([&] { return (before = connections_by_handler()).size() >= 2; }, 20s))
        << consumer.describe();
    for (const auto& [pid, connections] : before)
        for (const std::string& id : connections) tables().connection().execute_text("KILL CONNECTION " + id);
    const std::size_t sent_before_kill = std::stoul(ids("SELECT COUNT(*) FROM " + sent_).at(0));
    EXPECT_LT(sent_before_kill, emails_.size() / 2) << "the connections were killed too late to matter";

    ASSERT_EQ(consumer.wait_for(60s), 0) << consumer.describe();
    const std::string err = consumer.err();

    // Every email sent; a mail sent twice is possible (a send whose answer was lost) and counted.
    const std::vector<std::string> sent = ids("SELECT CAST(email_id AS CHAR) FROM " + sent_ + " ORDER BY email_id");
    const std::set<std::string> sent_ids(sent.begin(), sent.end());
    EXPECT_EQ(sent_ids, std::set<std::string>(emails_.begin(), emails_.end())) << consumer.describe();
    const std::size_t duplicates = sent.size() - sent_ids.size();
    std::cout << "mail scenario: " << emails_.size() << " emails, " << sent.size() << " sends, " << duplicates
              << " duplicate(s), " << sent_before_kill << " sent before the kill\n";
    RecordProperty("duplicates", static_cast<int>(duplicates));
    EXPECT_NE(err.find(std::to_string(emails_.size()) + " done"), std::string::npos) << consumer.describe();

    // Nothing left behind in Redis: ready, claimed, delayed or dead.
    EXPECT_EQ(redis_->command({"LLEN", queue_}).integer, 0);
    EXPECT_EQ(processing_tasks(*redis_, queue_), 0) << "a task was left claimed";
    EXPECT_EQ(redis_->command({"ZCARD", queue_ + ":delayed"}).integer, 0);
    EXPECT_EQ(redis_->command({"LLEN", queue_ + ":dead"}).integer, 0);

    // Each handler whose connection was killed went on sending over a new one, and said so.
    const auto after = connections_by_handler();
    for (const auto& [pid, connections] : before) {
        const auto found = after.find(pid);
        ASSERT_NE(found, after.end()) << pid;
        EXPECT_GE(found->second.size(), 2u) << "handler " << pid << " never sent over a new connection\n"
                                            << consumer.describe();
    }
    EXPECT_EQ(occurrences(err, ": reconnected to MySQL"), before.size()) << consumer.describe();
}

}  // namespace
}  // namespace rowpump::test

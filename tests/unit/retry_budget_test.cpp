// One retry budget however retries nest, and one table of transient MySQL codes. The error of a spent
// budget used to keep its transient code (2013), so a retry around a retry started a second budget.
#include <gtest/gtest.h>

#include <chrono>

#include "mysql/connection.hpp"
#include "mysql/error_codes.hpp"
#include "retry.hpp"
#include "rowpump/error.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;

void wait_as_mysql_does(const Error& error, int attempt, const RetryDeadline& deadline) {
    mysql::wait_before_retry(error, error.what(), attempt, deadline);
}

TEST(RetryBudget, ARetryAroundARetryWaitsOneBudgetAndEndsWithAFinalError) {
    const auto budget = 400ms;
    int attempts = 0;
    const auto started = std::chrono::steady_clock::now();
    try {
        retry_transient(
            budget,
            [&] {
                return retry_transient(
                    budget,
                    [&]() -> int {
                        ++attempts;
                        throw ConnectionLost("lost", mysql::codes::lost_during_query, "HY000", "SELECT 1");
                    },
                    wait_as_mysql_does);
            },
            wait_as_mysql_does);
        ADD_FAILURE() << "a connection that is always lost succeeded";
    } catch (const DbError& error) {
        EXPECT_FALSE(error.is_transient()) << error.what();
        EXPECT_EQ(error.code(), mysql::codes::lost_during_query) << "the final error keeps the cause's code";
        EXPECT_NE(std::string(error.what()).find("gave up after retrying for 400 ms"), std::string::npos)
            << error.what();
    }
    const auto took = std::chrono::steady_clock::now() - started;
    EXPECT_GE(took, budget);
    EXPECT_LT(took, budget * 3 / 2) << "the outer retry started a second budget after " << attempts << " attempts";
}

TEST(RetryBudget, TheTableSaysWhichCodesAreTransientAndACommitInDoubtIsALostConnection) {
    for (int code : {mysql::codes::lock_wait_timeout, mysql::codes::deadlock, mysql::codes::server_gone,
                     mysql::codes::lost_during_query, mysql::codes::connection_killed, mysql::codes::server_shutdown,
                     mysql::codes::cannot_connect_tcp, mysql::codes::idle_too_long, mysql::codes::tls_error})
        EXPECT_TRUE(mysql::codes::is_transient(code)) << code;
    for (int code : {1062 /* duplicate key */, 1146 /* no such table */, 1969 /* statement time limit */})
        EXPECT_FALSE(mysql::codes::is_transient(code)) << code;
    // The wall's table decides when it throws; the public error only carries the answer.
    EXPECT_TRUE(DbError("x", mysql::codes::deadlock, "40001", "", true).is_transient());
    EXPECT_FALSE(DbError("x", 1062, "23000", "").is_transient());
    EXPECT_FALSE(RetryBudgetSpent("x", mysql::codes::server_gone, "HY000", "").is_transient());

    const CommitInDoubt in_doubt(ConnectionLost("MySQL connection lost", mysql::codes::lost_during_query, "HY000", "COMMIT"));
    EXPECT_TRUE(in_doubt.is_transient());
    EXPECT_EQ(in_doubt.code(), mysql::codes::lost_during_query);
    EXPECT_NE(std::string(in_doubt.what()).find("may have been committed"), std::string::npos) << in_doubt.what();
}

}  // namespace
}  // namespace rowpump

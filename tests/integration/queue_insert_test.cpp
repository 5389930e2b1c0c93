// The queue table's three ways in (src/backend/mysql_queue/mysql_queue_insert.hpp), against the local MariaDB: bulk
// execution with array binding on Connector/C, prepared multi-row INSERTs on Connector/C when the server
// refuses bulk (binlog_format=STATEMENT), and prepared multi-row INSERTs on Connector/C++.
// Each stores the same rows. Also: a Connector/C session answers a query as a Connector/C++ one does.
// Tables are rp_test_<name>_<pid>, dropped at the end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "mysql/connection.hpp"
#include "mysql/transaction.hpp"
#include "backend/mysql_queue/mysql_queue_insert.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "rowpump/error.hpp"

namespace rowpump::test {
namespace {

constexpr int bulk_needs_row_binlog = 4033;

class QueueInsertTest : public MySqlTest {
protected:
    std::string queue_table(const std::string& base) {
        const std::string ddl = mysql::queue_table_ddl("x");
        return tables().create(base, ddl.substr(ddl.find(" (")));
    }

    static void insert(mysql::Connection& connection, const std::string& table, const std::vector<Message>& batch) {
        mysql::QueueInserter inserter(connection, table, 3);
        mysql::Transaction transaction(connection);
        inserter.insert(batch);
        transaction.commit();
    }

    // What a consumer sees of each row, in id order: a row that is ready now shows "now" for its time.
    std::vector<Row> stored(const std::string& table) {
        return tables().rows("SELECT CAST(priority AS CHAR), HEX(payload), status, IF(available_at > NOW(6) + INTERVAL "
                             "1 MINUTE, CAST(available_at AS CHAR), 'now') FROM " +
                             mysql::quote_identifier(table) + " ORDER BY id");
    }
};

// 20,000 rows: more than one bulk execution (16,384 rows) and every multi-row chunk size. Payloads with
// quotes, backslashes, NUL bytes, non-ASCII text, an empty one and a long one; due times now, in an hour,
// after 2038 and past year 9999 (clamped).
std::vector<Message> varied_batch() {
    std::vector<Message> batch;
    const std::int64_t in_an_hour = 1'900'000'000'000;  // 2030
    const std::int64_t after_2038 = 2'500'000'000'000;  // 2049
    const std::int64_t past_9999 = 300'000'000'000'000;
    for (int i = 0; i < 20'000; ++i) {
        std::string payload = R"({"n":)" + std::to_string(i) + R"(,"s":"naïve ☃ 'q' \"d\" \\ )";
        payload += std::string("\0", 1) + "\"}";
        const std::int64_t due[] = {0, 0, in_an_hour + i, after_2038 + i, past_9999};
        batch.push_back({std::move(payload), i % 3, due[i % 5]});
    }
    batch[7].payload = "";
    batch[8].payload = std::string(200'000, 'x');
    return batch;
}

TEST_F(QueueInsertTest, BulkMultiRowAndPreparedInsertsStoreTheSameRows) {
    const auto batch = varied_batch();

    const auto bulk_table = queue_table("ins_bulk");
    mysql::Connection bulk(options(), mysql::SessionDriver::connector_c);
    ASSERT_TRUE(bulk.supports_bulk()) << "the local MariaDB offers bulk execution";
    insert(bulk, bulk_table, batch);

    const auto refused_table = queue_table("ins_refused");
    mysql::Connection refused(options(), mysql::SessionDriver::connector_c);
    refused.execute_text("SET SESSION binlog_format = 'STATEMENT'");
    try {
        refused.execute_bulk("INSERT INTO " + mysql::quote_identifier(refused_table) + " (payload) VALUES (?)",
                             {std::vector<std::string_view>{"a", "b"}});
        FAIL() << "bulk execution under binlog_format=STATEMENT was expected to be refused";
    } catch (const DbError& error) {
        EXPECT_EQ(error.code(), bulk_needs_row_binlog) << error.what();
    }
    EXPECT_EQ(tables().count(refused_table), 0u);
    insert(refused, refused_table, batch);  // the inserter takes multi-row INSERTs instead

    const auto prepared_table = queue_table("ins_prepared");
    mysql::Connection prepared(options());
    EXPECT_FALSE(prepared.supports_bulk());
    insert(prepared, prepared_table, batch);

    const auto expected = stored(prepared_table);
    ASSERT_EQ(expected.size(), batch.size());
    EXPECT_EQ(expected[8][1], hex(batch[8].payload));
    EXPECT_EQ(expected[7][1], "");
    EXPECT_EQ(expected[3][0], "3");  // level 0 of 3 lists: the highest priority
    EXPECT_EQ(expected[5][0], "1");  // level 2
    EXPECT_EQ(expected[3][3], "2049-03-22 04:26:40.003000");  // after 2038, UTC
    EXPECT_EQ(expected[4][3], "9999-12-31 23:59:59.000000");  // clamped
    EXPECT_EQ(expected[0][3], "now");
    const auto from_bulk = stored(bulk_table);
    EXPECT_TRUE(from_bulk == expected) << first_difference(from_bulk, expected);
    const auto from_multi_row = stored(refused_table);
    EXPECT_TRUE(from_multi_row == expected) << first_difference(from_multi_row, expected);
}

// The queue writers' ledger runs its control statements on Connector/C too: labels, NULLs, escaped
// values, affected rows and errors come back as on Connector/C++.
TEST_F(QueueInsertTest, AConnectorCSessionAnswersAsAConnectorCppOneDoes) {
    const auto table = tables().create("ins_answers", "(id INT PRIMARY KEY, v VARBINARY(20)) ENGINE=InnoDB");
    mysql::Connection cpp(options());
    mysql::Connection c(options(), mysql::SessionDriver::connector_c);
    const std::string nul_and_quotes = std::string("a'b\\c\0d\"", 8);
    for (mysql::Connection* connection : {&cpp, &c}) {
        SCOPED_TRACE(connection == &c ? "Connector/C" : "Connector/C++");
        auto result = connection->query("SELECT 1 AS one, NULL AS nothing, ? AS text, ? AS number, '?' AS mark",
                                        {nul_and_quotes, std::int64_t{-5}});
        ASSERT_EQ(result.column_count(), 5u);
        EXPECT_EQ(result.label(1), "one");
        EXPECT_EQ(result.label(2), "nothing");
        ASSERT_TRUE(result.next());
        EXPECT_EQ(result.int64(1), 1);
        EXPECT_TRUE(result.is_null(2));
        EXPECT_EQ(result.text(3), nul_and_quotes);
        EXPECT_EQ(result.int64(4), -5);
        EXPECT_EQ(result.text(5), "?");
        EXPECT_FALSE(result.next());
        auto autocommit = connection->query("SELECT @@autocommit");
        ASSERT_TRUE(autocommit.next());
        EXPECT_EQ(autocommit.int64(1), 1);

        tables().execute(table, "DELETE FROM {t}");
        const std::string quoted = mysql::quote_identifier(table);
        EXPECT_EQ(connection->execute("INSERT INTO " + quoted + " VALUES (?, ?), (?, ?)",
                                      {std::int64_t{1}, nul_and_quotes, std::int64_t{2}, std::string("x")}),
                  2u);
        const std::string update = "UPDATE " + quoted + " SET v = ? WHERE id ";
        EXPECT_EQ(connection->execute(update + ">= ?", {std::string("y"), std::uint64_t{1}}), 2u);
        // Matched, but not changed: neither driver asks for found rows.
        EXPECT_EQ(connection->execute(update + "= ?", {std::string("y"), std::int64_t{1}}), 0u);
        EXPECT_EQ(connection->query("SELECT HEX(v) FROM " + quoted + " WHERE id = 1").size(), 1u);
        EXPECT_EQ(connection->query("SELECT id FROM " + quoted + " WHERE id = 42").size(), 0u);
        try {
            connection->execute("INSERT INTO " + quoted + " VALUES (?, ?)", {std::int64_t{1}, std::string("z")});
            ADD_FAILURE() << "a duplicate key was expected to be refused";
        } catch (const DbError& error) {
            EXPECT_EQ(error.code(), 1062) << error.what();
            EXPECT_EQ(error.sqlstate(), "23000");
        }
    }
}

}  // namespace
}  // namespace rowpump::test

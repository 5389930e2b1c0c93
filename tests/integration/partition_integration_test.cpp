// Partition plans against the real MariaDB: every row is read exactly once when each range is read by
// its own PageReader, for integer (gaps, negatives, the 64-bit extremes), composite, case-insensitive
// string, skewed, NULL-key, empty and one-row tables, and many partition counts; balanced ranges hold
// about the same rows; work-stealing midpoints split a remainder without losing or repeating a row.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "mysql/connection.hpp"
#include "partition/key_index.hpp"
#include "partition/midpoint.hpp"
#include "partition/planners.hpp"
#include "rowpump/error.hpp"
#include "rowpump/partition.hpp"
#include "rowpump/reader.hpp"

namespace rowpump {
namespace {

const std::vector<std::size_t> part_counts{1, 2, 3, 7, 16, 99, 1000};

struct TableDefinition {
    std::string columns;
    std::vector<std::string> fill;  // INSERT INTO the table these
};

// Every table has a unique `rowid`, which is what the checks count.
const std::map<std::string, TableDefinition> definitions{
    {"ints", {"id BIGINT NOT NULL PRIMARY KEY, rowid INT NOT NULL",
              {"SELECT CAST(seq AS SIGNED) * 7 - 35000, seq FROM seq_1_to_10000"}}},
    {"extremes", {"id BIGINT NOT NULL PRIMARY KEY, rowid INT NOT NULL",
                  {"VALUES (-9223372036854775808, 1), (9223372036854775807, 2)",
                   "SELECT CAST(seq AS SIGNED) - 3, seq + 3 FROM seq_0_to_6"}}},
    {"uextremes", {"id BIGINT UNSIGNED NOT NULL PRIMARY KEY, rowid INT NOT NULL",
                   {"VALUES (0, 1), (18446744073709551615, 2), (9223372036854775808, 3)",
                    "SELECT seq, seq FROM seq_10_to_20"}}},
    {"composite", {"a INT NOT NULL, b VARCHAR(16) NOT NULL, rowid INT NOT NULL, PRIMARY KEY (a, b)",
                   {"SELECT seq % 37, CONCAT('k', seq), seq FROM seq_1_to_10000"}}},
    // Under utf8mb4_general_ci 'a' = 'A' and 'é' = 'E': only the server can order these keys.
    {"strings", {"name VARCHAR(32) COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY, rowid INT NOT NULL",
                 {"SELECT CONCAT(ELT(1 + seq % 6, 'a', 'B', 'c', 'D', 'é', 'E'), seq), seq FROM seq_1_to_10000"}}},
    // Keys that share a long prefix, in a binary collation, with bytes beyond ASCII.
    {"prefixed", {"code VARBINARY(40) NOT NULL PRIMARY KEY, rowid INT NOT NULL",
                  {"SELECT CONCAT('order-2024-', LPAD(seq * 13, 7, '0'), IF(seq % 5 = 0, 'ü', '')), seq FROM seq_1_to_5000"}}},
    {"bin_text", {"code VARCHAR(40) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, rowid INT NOT NULL",
                  {"SELECT CONCAT('order-2024-', LPAD(seq * 13, 7, '0'), IF(seq % 5 = 0, 'ü', '')), seq FROM seq_1_to_5000"}}},
    {"dates", {"at DATETIME(3) NOT NULL PRIMARY KEY, rowid INT NOT NULL",
               {"SELECT TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq * 1500000 MICROSECOND + INTERVAL seq DIV 1000 DAY, seq "
                "FROM seq_1_to_5000"}}},
    {"days", {"day DATE NOT NULL, n INT NOT NULL, rowid INT NOT NULL, PRIMARY KEY (day, n)",
              {"SELECT DATE '1999-12-01' + INTERVAL seq DIV 3 DAY, seq % 3, seq FROM seq_1_to_6000"}}},
    {"tiny", {"name VARCHAR(8) COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY, rowid INT NOT NULL",
              {"VALUES ('b', 1), ('A', 2), ('c', 3), ('É', 4), ('d', 5)"}}},
    // 99% of the rows in the lowest 0.0005% of the key range, the other 1% spread up to 2 * 10^9.
    {"skewed", {"id BIGINT UNSIGNED NOT NULL PRIMARY KEY, rowid INT NOT NULL",
                {"SELECT seq, seq FROM seq_1_to_9900",
                 "SELECT 100000 + seq * 20000000, 9900 + seq FROM seq_1_to_100"}}},
    {"nullable", {"id INT NOT NULL PRIMARY KEY, u INT NULL UNIQUE, rowid INT NOT NULL",
                  {"SELECT seq, IF(seq % 10 = 0, NULL, seq * 3), seq FROM seq_1_to_2000"}}},
    // Half the rows dense, half spread a thousand keys apart: InnoDB counts the short ranges of the
    // sparse half exactly but doubles its extrapolation for the long ones of the dense half.
    {"mixed", {"id BIGINT NOT NULL PRIMARY KEY, rowid INT NOT NULL",
               {"SELECT seq, seq FROM seq_1_to_30000", "SELECT 1000000 + seq * 1000, 30000 + seq FROM seq_1_to_30000"}}},
    // Large enough that the estimated planner's exact counts are a small part of it.
    {"wide", {"id INT UNSIGNED NOT NULL PRIMARY KEY, rowid INT NOT NULL, pad CHAR(100) NOT NULL",
              {"SELECT seq * 3, seq, SHA1(seq) FROM seq_1_to_200000"}}},
    // An employees-style salaries table: a composite key whose first column is an integer, a few rows each.
    {"salaries", {"emp_no INT NOT NULL, from_date DATE NOT NULL, rowid INT NOT NULL, PRIMARY KEY (emp_no, from_date)",
                  {"SELECT 10000 + seq DIV 7, DATE '1990-01-01' + INTERVAL seq % 7 YEAR, seq FROM seq_1_to_60000"}}},
    {"empty", {"id INT NOT NULL PRIMARY KEY, rowid INT NOT NULL", {}}},
    {"one", {"id INT NOT NULL PRIMARY KEY, rowid INT NOT NULL", {"VALUES (42, 1)"}}},
};

// The tables a test process uses, each created and filled on first use (ctest runs every test in its
// own process, so most create only one or two) and dropped by TestTables when the suite ends.
class Tables {
public:
    explicit Tables(const MySqlOptions& options) : owner_(options) {}

    const std::string& operator[](const std::string& base) {
        auto made = names_.find(base);
        if (made != names_.end()) return made->second;
        const auto& definition = definitions.at(base);
        const std::string name = owner_.create("part_" + base, "(" + definition.columns + ") ENGINE=InnoDB");
        for (const auto& rows : definition.fill) owner_.execute(name, "INSERT INTO {t} " + rows);
        // Fresh statistics: the sampled walk and the EXPLAIN estimates read them.
        owner_.connection().query("ANALYZE TABLE " + mysql::quote_identifier(name));
        return names_[base] = name;
    }

    mysql::Connection& connection() { return owner_.connection(); }

private:
    test::TestTables owner_;
    std::map<std::string, std::string> names_;
};

class PartitionTest : public testing::Test {
protected:
    static void SetUpTestSuite() {
        if (auto options = test::mysql_options_from_env()) tables_ = std::make_unique<Tables>(*options);
    }
    static void TearDownTestSuite() { tables_.reset(); }

    void SetUp() override {
        if (!tables_) FAIL() << test::start_services_hint;
    }

    static MySqlOptions mysql() { return MySqlOptions::from_env(); }
    static Tables& tables() { return *tables_; }

    static std::shared_ptr<const ReadPlan> plan_for(const std::string& table, std::vector<std::string> key = {},
                                                    std::string where = "") {
        ReadSpec spec;
        spec.table = table;
        spec.key = std::move(key);
        spec.columns = {"rowid"};
        spec.where = std::move(where);
        spec.page_size = 2000;
        spec.null_keys = NullKeys::read_first;
        return std::make_shared<const ReadPlan>(plan_read(mysql(), spec));
    }

    // rowid -> 0 for every row the plan should read.
    static std::map<long, int> expected_rows(const ReadPlan& plan) {
        std::map<long, int> rows;
        std::string sql = "SELECT rowid FROM " + plan.table.quoted_name();
        if (!plan.spec.where.empty()) sql += " WHERE " + plan.spec.where;
        auto result = tables().connection().query(sql);
        while (result.next()) rows[result.int64(1)] = 0;
        return rows;
    }

    // Reads each range with its own PageReader over one session, as a worker reads the ranges it takes, and
    // checks that every row the plan covers is read exactly once overall. Returns the rows read per range.
    static std::vector<std::uint64_t> read_exactly_once(const std::shared_ptr<const ReadPlan>& plan,
                                                        const std::vector<KeyRange>& ranges) {
        auto seen = expected_rows(*plan);
        std::vector<std::uint64_t> per_range;
        const auto session = open_reader_session(mysql(), *plan);
        for (const auto& range : ranges) {
            PageReader reader(session, plan, range);
            std::uint64_t rows = 0;
            while (auto page = reader.next_page()) {
                for (std::size_t row = 0; row < page->row_count(); ++row) {
                    const long rowid = std::stol(std::string(*page->value(row, 0)));
                    auto found = seen.find(rowid);
                    if (found == seen.end()) ADD_FAILURE() << "read a row the plan does not cover: rowid " << rowid;
                    else if (++found->second > 1) ADD_FAILURE() << "rowid " << rowid << " read twice";
                }
                rows += page->row_count();
            }
            per_range.push_back(rows);
        }
        for (const auto& [rowid, reads] : seen)
            if (reads == 0) ADD_FAILURE() << "rowid " << rowid << " was never read";
        return per_range;
    }

    static std::vector<KeyRange> ranges_of(const PartitionPlan& plan) {
        std::vector<KeyRange> ranges;
        for (const auto& partition : plan.partitions) ranges.push_back(partition.range);
        return ranges;
    }

    // The structure every plan has: ranges open below, each starting where the previous stops.
    static void check_chained(const PartitionPlan& plan, std::size_t count) {
        ASSERT_FALSE(plan.partitions.empty());
        ASSERT_LE(plan.partitions.size(), count);
        EXPECT_FALSE(plan.partitions.front().range.lo);
        // Open above, unless frozen at the key's maximum when planned (then the last range stops there).
        if (!plan.frozen_upper_bound) {
            EXPECT_FALSE(plan.partitions.back().range.hi);
        }
        for (std::size_t i = 0; i + 1 < plan.partitions.size(); ++i) {
            ASSERT_TRUE(plan.partitions[i].range.hi && plan.partitions[i + 1].range.lo);
            EXPECT_EQ(*plan.partitions[i].range.hi, *plan.partitions[i + 1].range.lo);
        }
        std::uint64_t sum = 0;
        for (const auto& partition : plan.partitions) sum += partition.estimated_rows;
        EXPECT_EQ(sum, plan.estimated_rows);
    }

    // Balanced plans come from exact counts on these tables: the estimates are the rows read, the range
    // count is min(count, rows), and sizes differ by at most one row.
    static void check_balanced(const std::string& table, std::vector<std::string> key = {}, std::string where = "") {
        auto plan = plan_for(table, std::move(key), std::move(where));
        const auto total = expected_rows(*plan).size();
        for (std::size_t count : part_counts) {
            SCOPED_TRACE(table + " balanced into " + std::to_string(count));
            const auto partitions = plan_partitions(mysql(), *plan, count, PartitionStrategy::balanced);
            check_chained(partitions, count);
            EXPECT_EQ(partitions.partitions.size(), std::clamp<std::size_t>(total, 1, count));
            EXPECT_EQ(partitions.estimated_rows, total);
            const auto rows = read_exactly_once(plan, ranges_of(partitions));
            for (std::size_t i = 0; i < rows.size(); ++i)
                EXPECT_EQ(rows[i], partitions.partitions[i].estimated_rows) << "range " << i;
            const auto [fewest, most] = std::minmax_element(rows.begin(), rows.end());
            if (total >= 10 * count) {
                EXPECT_LE(static_cast<double>(*most), 1.5 * static_cast<double>(*fewest));
            }
        }
    }

    static PartitionPlan check_minmax(const std::string& table, std::size_t count) {
        SCOPED_TRACE(table + " minmax into " + std::to_string(count));
        auto plan = plan_for(table);
        auto partitions = plan_partitions(mysql(), *plan, count, PartitionStrategy::minmax);
        check_chained(partitions, count);
        read_exactly_once(plan, ranges_of(partitions));
        return partitions;
    }

private:
    static inline std::unique_ptr<Tables> tables_;
};

TEST_F(PartitionTest, BalancedIntegerKeysWithGapsAndNegatives) { check_balanced(tables()["ints"]); }
TEST_F(PartitionTest, BalancedCompositeKeys) { check_balanced(tables()["composite"]); }
TEST_F(PartitionTest, BalancedCaseInsensitiveStringKeys) { check_balanced(tables()["strings"]); }
TEST_F(PartitionTest, BalancedSkewedKeys) { check_balanced(tables()["skewed"]); }
TEST_F(PartitionTest, BalancedDatetimeKeys) { check_balanced(tables()["dates"]); }
TEST_F(PartitionTest, BalancedBinaryStringKeys) { check_balanced(tables()["prefixed"]); }
TEST_F(PartitionTest, BalancedWithAFilter) { check_balanced(tables()["ints"], {}, "id % 3 = 0 AND id < 50000"); }
TEST_F(PartitionTest, BalancedMorePartitionsThanRows) {
    check_balanced(tables()["tiny"]);
    check_balanced(tables()["extremes"]);
    check_balanced(tables()["one"]);
}

TEST_F(PartitionTest, BalancedNullKeysAreReadByTheFirstRange) {
    auto plan = plan_for(tables()["nullable"], {"u"});
    ASSERT_EQ(plan->null_key_rows, 200u);
    for (std::size_t count : part_counts) {
        const auto partitions = plan_partitions(mysql(), *plan, count, PartitionStrategy::balanced);
        check_chained(partitions, count);
        EXPECT_EQ(partitions.estimated_rows, 2000u);
        const auto rows = read_exactly_once(plan, ranges_of(partitions));
        ASSERT_EQ(rows.size(), partitions.partitions.size());
        for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], partitions.partitions[i].estimated_rows);
    }
}

TEST_F(PartitionTest, EmptyTableIsOneOpenRange) {
    auto plan = plan_for(tables()["empty"]);
    for (auto strategy : {PartitionStrategy::balanced, PartitionStrategy::minmax}) {
        const auto partitions = plan_partitions(mysql(), *plan, 16, strategy);
        ASSERT_EQ(partitions.partitions.size(), 1u);
        EXPECT_FALSE(partitions.partitions[0].range.lo);
        EXPECT_FALSE(partitions.partitions[0].range.hi);
        EXPECT_EQ(partitions.estimated_rows, 0u);
    }
}

TEST_F(PartitionTest, MinmaxCoversIntegerKeysWithGapsAndNegatives) {
    for (std::size_t count : part_counts) {
        const auto partitions = check_minmax(tables()["ints"], count);
        EXPECT_EQ(partitions.partitions.size(), count);
    }
}

TEST_F(PartitionTest, MinmaxSplitsTheWhole64BitRanges) {
    // 16 is already more ranges than rows here; the unit tests take larger counts over these ranges.
    for (std::size_t count : std::initializer_list<std::size_t>{1, 3, 7, 16}) {
        check_minmax(tables()["extremes"], count);
        check_minmax(tables()["uextremes"], count);
    }
    const auto halves = check_minmax(tables()["extremes"], 2);
    ASSERT_EQ(halves.partitions.size(), 2u);
    EXPECT_EQ(*halves.partitions[1].range.lo, (KeyValue{std::int64_t{0}}));
    const auto unsigned_halves = check_minmax(tables()["uextremes"], 2);
    EXPECT_EQ(*unsigned_halves.partitions[1].range.lo, (KeyValue{std::uint64_t{1} << 63}));
}

TEST_F(PartitionTest, MinmaxTinyTablesGetFewerRanges) {
    EXPECT_EQ(check_minmax(tables()["one"], 16).partitions.size(), 1u);
    EXPECT_EQ(check_minmax(tables()["empty"], 3).partitions.size(), 1u);
}

// minmax splits key widths, not rows: on a skewed key nearly everything lands in the first range. This is
// the documented price of its speed, and why balanced is the default.
TEST_F(PartitionTest, MinmaxIsUnbalancedOnSkewedKeys) {
    auto plan = plan_for(tables()["skewed"]);
    const auto partitions = plan_partitions(mysql(), *plan, 16, PartitionStrategy::minmax);
    const auto rows = read_exactly_once(plan, ranges_of(partitions));
    EXPECT_GE(rows.front(), 9900u);
    // The estimates come from EXPLAIN and show the imbalance too.
    EXPECT_GT(partitions.partitions.front().estimated_rows, 10 * partitions.partitions.back().estimated_rows);
}

TEST_F(PartitionTest, MinmaxRefusesKeysItCannotSplit) {
    for (const char* base : {"composite", "tiny"}) {
        auto plan = plan_for(tables()[base]);
        EXPECT_THROW(plan_partitions(mysql(), *plan, 4, PartitionStrategy::minmax), UsageError);
    }
}

TEST_F(PartitionTest, ZeroPartitionsIsAUsageError) {
    auto plan = plan_for(tables()["ints"]);
    EXPECT_THROW(plan_partitions(mysql(), *plan, 0, PartitionStrategy::balanced), UsageError);
    EXPECT_THROW(plan_partitions(mysql(), *plan, 0, PartitionStrategy::minmax), UsageError);
}

// The single-pass sampled walk that very large tables take, forced here by a zero count limit; fewer
// samples than the default keep it quick and still place boundaries within 1/16 of a range.
TEST_F(PartitionTest, SampledWalkCoversEveryRowAndBalances) {
    for (const char* base : {"skewed", "composite", "one"}) {
        auto plan = plan_for(tables()[base]);
        const auto total = expected_rows(*plan).size();
        KeyIndex index(tables().connection(), *plan);
        for (std::size_t count : part_counts) {
            SCOPED_TRACE(std::string(base) + " sampled into " + std::to_string(count));
            const auto partitions =
                plan_balanced(index, *plan, count, {.exact_count_limit = 0, .samples_per_partition = 8});
            check_chained(partitions, count);
            EXPECT_EQ(partitions.partitions.size(), std::clamp<std::size_t>(total, 1, count));
            EXPECT_EQ(partitions.estimated_rows, total);
            const auto rows = read_exactly_once(plan, ranges_of(partitions));
            for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], partitions.partitions[i].estimated_rows);
            const auto [fewest, most] = std::minmax_element(rows.begin(), rows.end());
            if (total >= 10 * count) {
                EXPECT_LE(static_cast<double>(*most), 1.5 * static_cast<double>(*fewest));
            }
        }
    }
}

// The planner from index estimates, called directly so that tables well below its size threshold take it:
// every row is read exactly once, ranges hold about the same rows, and the estimates are near the truth.
TEST_F(PartitionTest, EstimatesCoverEveryRowAndBalance) {
    for (const char* base : {"ints", "extremes", "uextremes", "skewed", "mixed", "wide", "salaries", "strings",
                             "bin_text", "dates", "days", "tiny", "one", "empty"}) {
        auto plan = plan_for(tables()[base]);
        const auto total = expected_rows(*plan).size();
        KeyIndex index(tables().connection(), *plan);
        // Every plan is read back whole: the large tables take fewer counts, and 1000 ranges (each read by
        // its own reader) are tried on three key types only, to keep the reads in seconds.
        std::vector<std::size_t> counts = total < 20000 ? std::vector<std::size_t>{1, 2, 3, 7, 16, 99}
                                                        : std::vector<std::size_t>{1, 7, 99};
        const std::string name = base;
        if (name == "skewed" || name == "strings" || name == "dates") counts.push_back(1000);
        if (total < 100) counts.push_back(total + 5);  // more ranges than rows
        for (std::size_t count : counts) {
            SCOPED_TRACE(std::string(base) + " by estimates into " + std::to_string(count));
            const auto estimated = plan_by_estimates(index, *plan, count);
            ASSERT_TRUE(estimated);
            const auto& partitions = *estimated;
            check_chained(partitions, count);
            const auto rows = read_exactly_once(plan, ranges_of(partitions));
            if (total >= 1000) {
                EXPECT_NEAR(static_cast<double>(partitions.estimated_rows), static_cast<double>(total), 0.1 * static_cast<double>(total));
            }
            if (total >= 100 * count) {
                EXPECT_EQ(partitions.partitions.size(), count);
                const double mean = static_cast<double>(total) / static_cast<double>(rows.size());
                EXPECT_LE(static_cast<double>(*std::max_element(rows.begin(), rows.end())), 1.25 * mean);
            }
        }
    }
}

// Planning from estimates reads a small part of the table: the handler reads of the planning session
// (index dives are not handler reads; the exact counts and the two index ends are).
TEST_F(PartitionTest, EstimatesReadUnderOnePercentOfTheRows) {
    auto plan = plan_for(tables()["wide"]);
    auto& connection = tables().connection();
    auto handler_reads = [&] {
        auto result = connection.query("SHOW SESSION STATUS LIKE 'Handler_read%'");
        std::uint64_t sum = 0;
        while (result.next()) sum += result.uint64(2);
        return sum;
    };
    KeyIndex index(connection, *plan);
    for (std::size_t count : {2, 32}) {
        const auto before = handler_reads();
        const auto partitions = plan_by_estimates(index, *plan, count).value();
        const auto reads = handler_reads() - before;
        EXPECT_EQ(partitions.partitions.size(), count);
        EXPECT_LT(reads, 200000 / 100) << count << " partitions";
        EXPECT_NE(partitions.method.find("index estimates"), std::string::npos) << partitions.method;
    }
}

// The planner asks for many estimates and counts at once (a UNION ALL under one EXPLAIN, a row of
// scalar subqueries): each answer is the one the span gets asked alone, in the spans' order, across the
// statements a long list takes, for open, empty and impossible spans too.
TEST_F(PartitionTest, BatchedEstimatesAndCountsAreThoseOfEachSpanAlone) {
    auto plan = plan_for(tables()["mixed"]);  // dense 1..30000, then sparse 1,001,000..31,000,000
    KeyIndex index(tables().connection(), *plan);
    std::vector<KeyIndex::LeadingSpan> spans{{std::nullopt, std::nullopt},
                                             {std::nullopt, KeyPart{std::int64_t{100}}},
                                             {KeyPart{std::int64_t{30000000}}, std::nullopt},
                                             {KeyPart{std::int64_t{40000}}, KeyPart{std::int64_t{50000}}},  // empty
                                             {KeyPart{std::int64_t{500}}, KeyPart{std::int64_t{400}}}};     // impossible
    for (std::int64_t from = 0; from < 31'000'000; from += 300'000)  // 104 more: two statements of estimates
        spans.push_back({KeyPart{from}, KeyPart{from + 150'000}});
    ASSERT_GT(spans.size(), 64u);
    const auto estimates = index.estimate_leading(spans);
    const auto counts = index.count_leading(spans, 40);
    ASSERT_EQ(estimates.size(), spans.size());
    ASSERT_EQ(counts.size(), spans.size());
    std::size_t nonzero = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        SCOPED_TRACE("span " + std::to_string(i));
        EXPECT_EQ(estimates[i], index.estimate_leading(spans[i].from, spans[i].before));
        EXPECT_EQ(counts[i], index.count_leading(spans[i].from, spans[i].before, 40));
        nonzero += estimates[i] > 0;
    }
    EXPECT_EQ(counts[0], 40u);  // the whole table, counted no further than the limit
    EXPECT_EQ(counts[1], 40u);
    EXPECT_EQ(counts[3], 0u);
    EXPECT_EQ(counts[4], 0u);
    EXPECT_EQ(estimates[4], 0u);  // "Impossible WHERE"
    EXPECT_GT(nonzero, spans.size() / 2);
}

// The boundaries' lookups, batched (64 a statement): each is the first key from its value, as the
// table's own ORDER BY ... LIMIT 1 finds it, and none past the last key.
TEST_F(PartitionTest, BatchedFirstKeysAreThoseOfEachValueAlone) {
    const std::string table = tables()["mixed"];  // dense 1..30000, then sparse 1,001,000..31,000,000
    auto plan = plan_for(table);
    KeyIndex index(tables().connection(), *plan);
    std::vector<KeyPart> from;
    for (std::int64_t value = -5; value < 32'000'000; value += 300'000) from.push_back(KeyPart{value});
    ASSERT_GT(from.size(), 64u);  // two statements
    const auto keys = index.first_from_leading(from);
    ASSERT_EQ(keys.size(), from.size());
    for (std::size_t i = 0; i < from.size(); ++i) {
        auto rows = tables().connection().query("SELECT id FROM " + mysql::quote_identifier(table) +
                                                " WHERE id >= ? ORDER BY id LIMIT 1", {std::get<std::int64_t>(from[i])});
        SCOPED_TRACE("value " + std::to_string(std::get<std::int64_t>(from[i])));
        if (!rows.next()) {
            EXPECT_FALSE(keys[i]);
            continue;
        }
        ASSERT_TRUE(keys[i]);
        EXPECT_EQ(std::to_string(std::get<std::int64_t>((*keys[i])[0])), rows.text(1));
    }
    EXPECT_FALSE(keys.back());  // past the last key
}

// A --where may hold a subquery, which EXPLAIN numbers among the SELECTs of a UNION: the estimates of
// such a plan are still each span's own, for many spans and for one.
TEST_F(PartitionTest, EstimatesUnderAWhereWithASubqueryAreThoseOfEachSpanAlone) {
    const std::string table = tables()["mixed"];
    auto plan = plan_for(table, {}, "id IN (SELECT id FROM " + mysql::quote_identifier(table) +
                                        " WHERE rowid % 3 = 0)");
    KeyIndex index(tables().connection(), *plan);
    std::vector<KeyIndex::LeadingSpan> spans;
    for (std::int64_t from = 0; from < 31'000'000; from += 1'000'000) spans.push_back({KeyPart{from}, KeyPart{from + 500'000}});
    for (const std::size_t count : {spans.size(), std::size_t{1}}) {
        SCOPED_TRACE(std::to_string(count) + " spans");
        const std::vector<KeyIndex::LeadingSpan> asked(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(count));
        const auto estimates = index.estimate_leading(asked);
        ASSERT_EQ(estimates.size(), count);
        for (std::size_t i = 0; i < count; ++i)
            EXPECT_EQ(estimates[i], index.estimate_leading(asked[i].from, asked[i].before)) << "span " << i;
    }
    const auto partitions = plan_minmax(index, *plan, 8);  // its cells are estimated under the filter
    check_chained(partitions, 8);
    EXPECT_GT(partitions.estimated_rows, 0u);
}

// A composite key whose first column has few values cannot be balanced on that column: the planner
// says so and walks the index instead, and the plan is as balanced as a walk makes it.
TEST_F(PartitionTest, EstimatesGiveWayToTheWalkWhenAFirstColumnValueHoldsTooManyRows) {
    auto plan = plan_for(tables()["composite"]);  // 37 values of its first column for 10,000 rows
    KeyIndex index(tables().connection(), *plan);
    EXPECT_FALSE(plan_by_estimates(index, *plan, 99));
    const auto partitions = plan_balanced(index, *plan, 99, {.estimate_above_rows = 0});
    EXPECT_NE(partitions.method.find("could not balance"), std::string::npos) << partitions.method;
    check_chained(partitions, 99);
    const auto rows = read_exactly_once(plan, ranges_of(partitions));
    EXPECT_EQ(partitions.partitions.size(), 99u);
}

// Text and datetime keys are planned from estimates too: a text first column is cut at probes that the
// server ranks (string_axis.hpp), a datetime one by arithmetic on its time (temporal_axis.hpp), and
// every boundary is a real key.
TEST_F(PartitionTest, TextKeysArePlannedFromEstimates) {
    for (const char* base : {"strings", "bin_text", "dates"}) {
        SCOPED_TRACE(base);
        auto plan = plan_for(tables()[base]);
        KeyIndex index(tables().connection(), *plan);
        const auto partitions = plan_balanced(index, *plan, 16, {.estimate_above_rows = 0});
        EXPECT_NE(partitions.method.find("index estimates"), std::string::npos) << partitions.method;
        EXPECT_NE(partitions.method.find("snapped to real keys"), std::string::npos) << partitions.method;
        for (std::size_t i = 1; i < partitions.partitions.size(); ++i) {
            const auto& lo = partitions.partitions[i].range.lo.value();
            auto found = tables().connection().query("SELECT COUNT(*) FROM " + plan->table.quoted_name() + " WHERE " +
                                                         mysql::quote_identifier(plan->key.columns[0]) + " = ?",
                                                     {lo[0]});
            found.next();
            EXPECT_EQ(found.uint64(1), 1u) << "range " << i << " starts at a key that is not in the table";
        }
    }
}

// minmax estimates its ranges as the balanced planner does: near the truth, not InnoDB's raw doubling.
TEST_F(PartitionTest, MinmaxEstimatesAreNearTheTruth) {
    for (const char* base : {"wide", "mixed", "ints"}) {
        SCOPED_TRACE(base);
        auto plan = plan_for(tables()[base]);
        const auto total = static_cast<double>(expected_rows(*plan).size());
        for (std::size_t count : {1, 8, 32}) {
            const auto partitions = plan_partitions(mysql(), *plan, count, PartitionStrategy::minmax);
            EXPECT_NEAR(static_cast<double>(partitions.estimated_rows), total, 0.1 * total) << count << " ranges";
            EXPECT_NE(partitions.method.find("corrected by"), std::string::npos) << partitions.method;
        }
    }
}

// Past the size threshold, plan_partitions takes the estimates by itself and says so.
TEST_F(PartitionTest, LargeIntegerKeyedTablesArePlannedFromEstimates) {
    auto plan = plan_for(tables()["wide"]);
    const auto partitions = plan_partitions(mysql(), *plan, 8, PartitionStrategy::balanced);
    EXPECT_NE(describe_planning(partitions).find("from index estimates"), std::string::npos)
        << describe_planning(partitions);
    EXPECT_NEAR(static_cast<double>(partitions.estimated_rows), 200000.0, 20000.0);
}

std::vector<long> rowids_of(const Page& page) {
    std::vector<long> out;
    for (std::size_t row = 0; row < page.row_count(); ++row) out.push_back(std::stol(std::string(*page.value(row, 0))));
    return out;
}

std::vector<long> read_rowids(PageReader& reader) {
    std::vector<long> out;
    while (auto page = reader.next_page()) {
        const auto rowids = rowids_of(*page);
        out.insert(out.end(), rowids.begin(), rowids.end());
    }
    return out;
}

// Work stealing as the scheduler does it: the victim has read a page of its range; the thief takes
// [mid, hi) and the victim's bound drops to mid. Together they read the range exactly once, and each
// gets a real share of the remainder.
void check_steal(const std::shared_ptr<const ReadPlan>& plan, mysql::Connection& connection,
                 const Partition& partition, double max_share) {
    const auto options = MySqlOptions::from_env();
    PageReader whole(options, plan, partition.range);
    auto expected = read_rowids(whole);

    PageReader victim(options, plan, partition.range);
    const auto first_page = victim.next_page();
    ASSERT_TRUE(first_page);
    const auto mid = find_midpoint(connection, *plan, victim.position(), partition.range.hi,
                                   partition.estimated_rows - first_page->row_count());
    ASSERT_TRUE(mid);
    victim.set_upper_bound(*mid);
    const auto kept = read_rowids(victim);
    PageReader thief(options, plan, KeyRange{*mid, partition.range.hi});
    const auto taken = read_rowids(thief);

    auto actual = rowids_of(*first_page);
    actual.insert(actual.end(), kept.begin(), kept.end());
    actual.insert(actual.end(), taken.begin(), taken.end());
    std::sort(actual.begin(), actual.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(actual, expected);
    EXPECT_GT(kept.size(), 0u);
    EXPECT_GT(taken.size(), 0u);
    EXPECT_LE(static_cast<double>(std::max(kept.size(), taken.size())),
              max_share * static_cast<double>(kept.size() + taken.size()));
}

TEST_F(PartitionTest, MidpointSplitsTheRemainderOfARange) {
    auto& connection = tables().connection();
    for (const char* base : {"ints", "composite", "strings"}) {
        SCOPED_TRACE(base);
        auto plan = plan_for(tables()[base]);
        const auto partitions = plan_partitions(mysql(), *plan, 3, PartitionStrategy::balanced);
        // The middle range, bounded on both sides, and the last one, open above.
        for (std::size_t i : {std::size_t{1}, std::size_t{2}}) check_steal(plan, connection, partitions.partitions[i], 0.6);
    }
}

TEST_F(PartitionTest, MidpointStaysInsideTheRemainder) {
    auto& connection = tables().connection();
    auto plan = plan_for(tables()["ints"]);
    const KeyValue after{std::int64_t{-7}}, before{std::int64_t{700}};
    const auto mid = find_midpoint(connection, *plan, after, before, 100);
    ASSERT_TRUE(mid);
    const auto value = std::get<std::int64_t>((*mid)[0]);
    EXPECT_GT(value, 0);  // after the first key left, 0
    EXPECT_LE(value, 693);
    // Before any row is delivered, a range's lower bound is passed inclusively.
    const auto from_lo = find_midpoint(connection, *plan, KeyValue{std::int64_t{0}}, before, 100, true);
    ASSERT_TRUE(from_lo);
    EXPECT_GT(std::get<std::int64_t>((*from_lo)[0]), 0);
    // From the start of the table when nothing was read and the range is open below.
    const auto from_start = find_midpoint(connection, *plan, std::nullopt, std::nullopt, 20000);
    ASSERT_TRUE(from_start);
    EXPECT_NEAR(static_cast<double>(std::get<std::int64_t>((*from_start)[0])), 0.0, 10.0);
}

TEST_F(PartitionTest, MidpointRefusesWhatCannotBeSplit) {
    auto& connection = tables().connection();
    auto ints = plan_for(tables()["ints"]);
    EXPECT_FALSE(find_midpoint(connection, *ints, std::nullopt, std::nullopt, 1));
    // One row left: (-7, 7) holds only 0.
    EXPECT_FALSE(find_midpoint(connection, *ints, KeyValue{std::int64_t{-7}}, KeyValue{std::int64_t{7}}, 50));
    auto strings = plan_for(tables()["tiny"]);
    // The estimate is far too high; the bounded recount finds two rows after 'c' ('d' and 'É' sort as 'd', 'E').
    const auto mid = find_midpoint(connection, *strings, KeyValue{std::string("C")}, std::nullopt, 1'000'000);
    ASSERT_TRUE(mid);
    EXPECT_EQ(std::get<std::string>((*mid)[0]), "É");
    EXPECT_FALSE(find_midpoint(connection, *strings, KeyValue{std::string("D")}, std::nullopt, 1'000'000));
    EXPECT_FALSE(find_midpoint(connection, *plan_for(tables()["empty"]), std::nullopt, std::nullopt, 10));
}

}  // namespace
}  // namespace rowpump

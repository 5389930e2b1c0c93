#include <algorithm>

#include "job/job_sections.hpp"
#include "paging/where_clause.hpp"
#include "rowpump/error.hpp"

namespace rowpump::job {

namespace {

constexpr std::uint64_t largest_page = 1'000'000;
// Like `rowpump backfill`: adapt the page size toward a quarter second per page unless told otherwise.
constexpr std::uint64_t default_page_time_ms = 250;

MySqlOptions options_from_url(const Field& url) {
    try {
        return MySqlOptions::from_url(url.text());
    } catch (const ConfigError&) {
        throw;
    } catch (const UsageError& error) {
        url.fail(error.what());
    }
}

void read_paging(const Section& source, ReadSpec& read) {
    if (auto strategy = source.optional("strategy"))
        read.strategy = parse_strategy(strategy->choice({"keyset", "deferred-join", "id-in", "offset"}));
    if (auto null_keys = source.optional("null_keys"))
        read.null_keys = null_keys->choice({"refuse", "first"}) == "first" ? NullKeys::read_first : NullKeys::refuse;

    if (auto page_size = source.optional("page_size")) read.page_size = page_size->whole(1, largest_page);
    const auto page_time = source.optional("page_time_ms");
    read.target_page_time = std::chrono::milliseconds(page_time ? page_time->whole(0, 3'600'000) : default_page_time_ms);
    read.min_page_size = std::min<std::size_t>(read.min_page_size, read.page_size);
    if (auto max_page_size = source.optional("max_page_size")) {
        read.max_page_size = max_page_size->whole(1, largest_page);
        if (read.max_page_size < read.page_size)
            max_page_size->fail("max_page_size " + std::to_string(read.max_page_size) + " is below page_size " +
                                std::to_string(read.page_size) + ": expected at least page_size");
    } else {
        read.max_page_size = std::max(read.max_page_size, read.page_size);
    }
}

}  // namespace

void read_source(const Field& field, JobSpec& spec) {
    const Section source = field.section({"mysql", "table", "key", "columns", "where", "strategy", "null_keys",
                                          "page_size", "page_time_ms", "max_page_size", "set_vars",
                                          "consistent_snapshot"});
    spec.mysql = options_from_url(source.required(
        "mysql", "the source URL, e.g. mysql: ${ROWPUMP_MYSQL_URL} (a password may come from "
                 "ROWPUMP_MYSQL_PASSWORD or ROWPUMP_MYSQL_PASSWORD_FILE)"));
    spec.read.table = source.required("table", "the table to read, as name or schema.name").text();
    if (auto key = source.optional("key")) spec.read.key = key->names();
    if (auto columns = source.optional("columns")) spec.read.columns = columns->names();
    if (auto where = source.optional("where")) {
        spec.read.where = where->text();
        if (auto problem = find_where_problem(spec.read.where))
            where->fail(describe(*problem, "where: \"a < 3 OR b = 1\""));
    }
    read_paging(source, spec.read);
    if (auto set_vars = source.optional("set_vars")) {
        try {
            spec.mysql.session_variables = parse_session_variables(set_vars->text(), "set_vars");
        } catch (const ConfigError&) {
            throw;
        } catch (const UsageError& error) {
            set_vars->fail(error.what());
        }
    }
    if (auto snapshot = source.optional("consistent_snapshot"))
        spec.consistent_snapshot = snapshot->choice({"true", "false"}) == "true";
}

}  // namespace rowpump::job

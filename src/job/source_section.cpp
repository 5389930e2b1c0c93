#include <algorithm>

#include "job/job_sections.hpp"
#include "job/option_fields.hpp"
#include "paging/where_clause.hpp"
#include "rowpump/error.hpp"

namespace rowpump::job {

namespace {

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
    read_option(source, OptionId::strategy, read.strategy);
    read_option(source, OptionId::null_keys, read.null_keys);

    std::uint64_t page_size = read.page_size;
    read_option(source, OptionId::page_size, page_size);
    read.page_size = page_size;
    std::uint64_t page_time_ms = default_page_time_ms;
    read_option(source, OptionId::page_time_ms, page_time_ms);
    read.target_page_time = std::chrono::milliseconds(page_time_ms);
    read.min_page_size = std::min<std::size_t>(read.min_page_size, read.page_size);
    std::uint64_t largest = 0;
    if (auto max_page_size = read_option(source, OptionId::max_page_size, largest)) {
        read.max_page_size = largest;
        if (read.max_page_size < read.page_size)
            max_page_size->fail("max_page_size " + std::to_string(read.max_page_size) + " is below page_size " +
                                std::to_string(read.page_size) + ": expected at least page_size");
    } else {
        read.max_page_size = std::max(read.max_page_size, read.page_size);
    }
}

}  // namespace

void read_source(const Field& field, JobSpec& spec) {
    const Section source = field.section(config::section_keys("source"));
    spec.mysql = options_from_url(source.required(
        "mysql", "the source URL, e.g. mysql: ${ROWPUMP_MYSQL_URL} (a password may come from "
                 "ROWPUMP_MYSQL_PASSWORD or ROWPUMP_MYSQL_PASSWORD_FILE)"));
    spec.read.table = source.required("table", "the table to read, as name or schema.name").text();
    read_option(source, OptionId::key, spec.read.key);
    read_option(source, OptionId::columns, spec.read.columns);
    if (auto where = read_option(source, OptionId::where, spec.read.where)) {
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
    read_option(source, OptionId::consistent_snapshot, spec.consistent_snapshot);
}

}  // namespace rowpump::job

#include "cli/cursor_read.hpp"

#include <fstream>

#include "cli/stdout_lines.hpp"
#include "encode/json_string.hpp"
#include "rowpump/cursor.hpp"

namespace rowpump::cli {

namespace {

// The flags of a page that do not go together, each refused in one line before anything is read.
void check_flags(const ReadOptions& options) {
    if (options.first && options.last) throw UsageError("--first and --last go one at a time");
    if (!options.after.empty() && !options.first) throw UsageError("--after goes with --first");
    if (!options.before.empty() && !options.last) throw UsageError("--before goes with --last");
    if (options.page && (!options.first || !options.after.empty()))
        throw UsageError("--page goes with --first N alone (no --after): it jumps to page P of N rows");
    if (options.approximate && !options.page) throw UsageError("--approximate goes with --page");
    if (options.sort.empty()) throw UsageError("--first and --last need --sort, e.g. --sort 'created_at DESC, id DESC'");
    if (!options.source.where.empty())
        throw UsageError("--where does not go with --first or --last: filter a page by --filter COLUMN=VALUE");
}

std::vector<std::pair<std::string, std::string>> parse_filter(const std::vector<std::string>& items) {
    std::vector<std::pair<std::string, std::string>> equals;
    for (const auto& item : items) {
        const std::size_t at = item.find('=');
        if (at == std::string::npos || at == 0) throw UsageError("--filter '" + item + "': write COLUMN=VALUE");
        equals.emplace_back(item.substr(0, at), item.substr(at + 1));
    }
    return equals;
}

std::string page_info_json(const CursorPage& page) {
    std::string out = "{\"start_cursor\":";
    const auto cursor = [&](const std::string& token) {
        if (token.empty()) out += "null";
        else append_json_string(token, out);
    };
    cursor(page.start_cursor);
    out += ",\"end_cursor\":";
    cursor(page.end_cursor);
    out += std::string(",\"has_next_page\":") + (page.has_next_page ? "true" : "false");
    out += std::string(",\"has_previous_page\":") + (page.has_previous_page ? "true" : "false");
    out += ",\"page_number\":" + (page.page_number ? std::to_string(page.page_number) : std::string("null"));
    out += ",\"method\":\"" + to_string(page.method) + "\"";
    if (page.total_rows_estimate) out += ",\"total_rows_estimate\":" + std::to_string(page.total_rows_estimate);
    if (!page.how.empty()) {
        out += ",\"how\":";
        append_json_string(page.how, out);
    }
    out += "}\n";
    return out;
}

}  // namespace

bool reads_cursor_page(const ReadOptions& options) { return options.first || options.last; }

int run_cursor_read(const ReadOptions& options) {
    check_flags(options);
    const auto keys = CursorKeys::from_environment();
    if (!keys)
        throw UsageError("--first and --last sign their tokens: set ROWPUMP_CURSOR_KEY or ROWPUMP_CURSOR_KEY_FILE "
                         "(e.g. export ROWPUMP_CURSOR_KEY=$(openssl rand -hex 32))");
    std::ofstream info;
    if (!options.page_info.empty()) {
        // Opened before the page is read: a path that cannot be written fails before any work.
        info.open(options.page_info, std::ios::trunc);
        if (!info) throw UsageError("--page-info " + options.page_info + ": cannot be written");
    }
    CursorSpec spec{options.source.table, parse_sort(options.sort), options.source.columns, parse_filter(options.filter)};
    Cursor cursor(options.source.mysql(), std::move(spec), *keys);
    CursorPage page;
    if (options.page)
        page = options.approximate ? cursor.jump_approximate(*options.page, *options.first)
                                   : cursor.jump_exact(*options.page, *options.first);
    else if (options.first)
        page = cursor.page(options.after.empty() ? PageRequest::first(*options.first)
                                                 : PageRequest::after(options.after, *options.first));
    else
        page = cursor.page(options.before.empty() ? PageRequest::last(*options.last)
                                                  : PageRequest::before(options.before, *options.last));

    PayloadOptions payload;
    apply_encoding_flags(options.encoding, payload);
    const auto encoder = make_encoder(options.format, page.columns, payload);
    std::vector<std::string> lines;
    if (!page.rows.empty() && !encoder->header().empty()) lines.push_back(encoder->header());
    for (std::size_t row = 0; row < page.rows.row_count(); ++row) encoder->encode(page.rows, row, lines.emplace_back());
    StdoutLines out;
    for (const auto& line : lines) out.add(line);
    out.flush();
    if (info.is_open()) {
        info << page_info_json(page);
        info.flush();
        if (!info) throw Error("--page-info " + options.page_info + ": the page info could not be written");
    }
    return 0;
}

}  // namespace rowpump::cli

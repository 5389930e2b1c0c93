// A web handler over rowpump's cursor pages (rowpump/cursor.hpp), on cpp-httplib: a list of a table's
// rows in pages, forward and backward with signed tokens, with links to the pages around the current one
// and a jump to page N, as JSON in GraphQL Relay's terms, and a small HTML page at / that browses it.
//
//   cursor_http TABLE 'SORT' [PORT]      e.g. cursor_http items 'created_at DESC, id DESC' 8080
// The rows come from ROWPUMP_MYSQL_URL; tokens are signed under ROWPUMP_CURSOR_KEY (or _FILE). It listens
// on 127.0.0.1, on PORT or (0 or none) a free port, and prints "listening on http://127.0.0.1:PORT".
//
//   GET /items?first=20[&after=TOKEN]     the first page, or the page after a page's end_cursor
//   GET /items?last=20[&before=TOKEN]     the last page, or the page before a page's start_cursor
//   GET /items?first=20&page=N            page N, counted exactly in the sort's index
//   GET /items?first=20&page=N&approximate=1   page about N, from index estimates
// Answer: {"items": [{column: value, ...}], "pageInfo": {"startCursor", "endCursor", "hasNextPage",
// "hasPreviousPage"}, "pageNumber", "method", "how", "totalRowsEstimate", "links": [{"page", "offset", "after"}]}.
// A bad token or request is a 400 with {"error": "..."}; the token is never used.
#include <rowpump/cursor.hpp>
#include <rowpump/error.hpp>

#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "cursor_http_page.hpp"

namespace {

constexpr std::size_t link_radius = 4;  // page links either side of the current page

void append_json_string(const std::string& text, std::string& out) {
    out += '"';
    for (const unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

std::string json_string_or_null(const std::string& text) {
    if (text.empty()) return "null";
    std::string out;
    append_json_string(text, out);
    return out;
}

std::string error_json(const std::string& message) {
    std::string out = "{\"error\":";
    append_json_string(message, out);
    return out + "}";
}

// A count from the query string: digits only, at least 1; throws UsageError naming the parameter.
std::size_t count_parameter(const httplib::Request& request, const char* name) {
    const std::string text = request.get_param_value(name);
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0)
        throw rowpump::UsageError(std::string(name) + " must be a whole number from 1, not '" + text + "'");
    return std::stoul(text);
}

class ItemsHandler {
public:
    explicit ItemsHandler(rowpump::Cursor cursor) : cursor_(std::move(cursor)) {}

    // The page a request names; throws UsageError (InvalidCursor for a bad token) on a bad request.
    std::string answer(const httplib::Request& request) {
        const bool first = request.has_param("first");
        const bool last = request.has_param("last");
        if (first == last) throw rowpump::UsageError("give first=N (with after or page) or last=N (with before)");
        const std::size_t size = count_parameter(request, first ? "first" : "last");
        const std::string after = request.get_param_value("after");
        const std::string before = request.get_param_value("before");
        if ((first && !before.empty()) || (last && (!after.empty() || request.has_param("page"))))
            throw rowpump::UsageError("after and page go with first, before with last");
        // One connection: requests take turns on it.
        std::lock_guard<std::mutex> lock(mutex_);
        rowpump::CursorPage page;
        if (request.has_param("page")) {
            if (!after.empty()) throw rowpump::UsageError("page goes with first alone, without after");
            const std::size_t number = count_parameter(request, "page");
            page = request.get_param_value("approximate") == "1" ? cursor_.jump_approximate(number, size)
                                                                 : cursor_.jump_exact(number, size);
        } else if (first) {
            page = cursor_.page(after.empty() ? rowpump::PageRequest::first(size) : rowpump::PageRequest::after(after, size));
        } else {
            page = cursor_.page(before.empty() ? rowpump::PageRequest::last(size) : rowpump::PageRequest::before(before, size));
        }
        std::vector<rowpump::PageLink> links;
        if (!page.start_cursor.empty()) links = cursor_.window(page.start_cursor, size, link_radius);
        return to_json(page, links);
    }

private:
    static std::string to_json(const rowpump::CursorPage& page, const std::vector<rowpump::PageLink>& links) {
        std::string out = "{\"items\":[";
        for (std::size_t row = 0; row < page.rows.row_count(); ++row) {
            out += row ? ",{" : "{";
            for (std::size_t c = 0; c < page.columns.size(); ++c) {
                if (c) out += ',';
                append_json_string(page.columns[c].name, out);
                out += ':';
                const auto value = page.rows.value(row, c);
                if (value) append_json_string(std::string(*value), out);
                else out += "null";
            }
            out += '}';
        }
        out += "],\"pageInfo\":{\"startCursor\":" + json_string_or_null(page.start_cursor) +
               ",\"endCursor\":" + json_string_or_null(page.end_cursor) +
               ",\"hasNextPage\":" + (page.has_next_page ? "true" : "false") +
               ",\"hasPreviousPage\":" + (page.has_previous_page ? "true" : "false") + "}";
        out += ",\"pageNumber\":" + (page.page_number ? std::to_string(page.page_number) : std::string("null"));
        out += ",\"method\":\"" + rowpump::to_string(page.method) + "\"";
        out += ",\"how\":" + json_string_or_null(page.how);
        out += ",\"totalRowsEstimate\":" +
               (page.total_rows_estimate ? std::to_string(page.total_rows_estimate) : std::string("null"));
        out += ",\"links\":[";
        for (std::size_t i = 0; i < links.size(); ++i) {
            out += (i ? ",{" : "{") + std::string("\"page\":") +
                   (links[i].page_number ? std::to_string(links[i].page_number) : std::string("null")) +
                   ",\"offset\":" + std::to_string(links[i].offset) + ",\"after\":" + json_string_or_null(links[i].after) + "}";
        }
        return out + "]}";
    }

    rowpump::Cursor cursor_;
    std::mutex mutex_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: cursor_http TABLE 'SORT' [PORT]\n");
        return 2;
    }
    try {
        const auto keys = rowpump::CursorKeys::from_environment();
        if (!keys) throw rowpump::UsageError("set ROWPUMP_CURSOR_KEY or ROWPUMP_CURSOR_KEY_FILE (openssl rand -hex 32)");
        rowpump::Cursor cursor(rowpump::MySqlOptions::from_env(), {argv[1], rowpump::parse_sort(argv[2]), {}, {}}, *keys);
        // The jumps' bookmarks now, before listening: else the first jump a user asks for pays for them
        // (0.1 to 0.2 s on a large table).
        if (!cursor.prepare_jumps())
            std::fprintf(stderr, "cursor_http: no bookmarks for this sort: page=N&approximate=1 counts exactly\n");
        ItemsHandler items(std::move(cursor));
        httplib::Server server;
        server.Get("/", [](const httplib::Request&, httplib::Response& response) {
            response.set_content(cursor_http_page, "text/html; charset=utf-8");
        });
        server.Get("/items", [&items](const httplib::Request& request, httplib::Response& response) {
            try {
                response.set_content(items.answer(request), "application/json");
            } catch (const rowpump::UsageError& error) {  // InvalidCursor among them
                response.status = 400;
                response.set_content(error_json(error.what()), "application/json");
            } catch (const std::exception& error) {
                response.status = 500;
                response.set_content(error_json(error.what()), "application/json");
            }
        });
        const int wanted = argc == 4 ? std::atoi(argv[3]) : 0;
        const int port = wanted > 0 ? (server.bind_to_port("127.0.0.1", wanted) ? wanted : -1)
                                    : server.bind_to_any_port("127.0.0.1");
        if (port <= 0) throw rowpump::UsageError("cannot listen on 127.0.0.1:" + std::to_string(wanted));
        std::printf("listening on http://127.0.0.1:%d\n", port);
        std::fflush(stdout);
        return server.listen_after_bind() ? 0 : 1;
    } catch (const rowpump::Error& error) {
        std::fprintf(stderr, "cursor_http: %s\n", error.what());
        return static_cast<int>(error.exit_code());
    }
}

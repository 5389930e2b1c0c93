#include "cli/read_command.hpp"

#include <cstdio>
#include <exception>
#include <thread>

#include "cli/number_flags.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "run/page_queue.hpp"

namespace rowpump::cli {

CLI::App* setup_read(CLI::App& app, ReadOptions& options) {
    auto* command = app.add_subcommand("read", "Read a table page by page (no OFFSET) and print one row per line");
    command->footer(
        "Examples:\n"
        "  rowpump read --table orders --limit 10\n"
        "  rowpump read --table orders --key created_at --where \"status = 'paid'\" --format csv\n"
        "  rowpump read --mysql mysql://app@127.0.0.1:3306/shop --table orders --strategy deferred-join");
    add_source_options(*command, options.source);
    command->add_option("--format", options.format, "Output format")->check(CLI::IsMember({"json", "csv"}));
    command->add_option("--limit", options.limit, "Stop after this many rows, at least 1 (default: all)")
        ->check(whole_number(1));
    add_encoding_flags(*command, options.encoding);
    return command;
}

namespace {

void write_or_throw(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
        throw Error("cannot write to standard output");
}

}  // namespace

int run_read(const ReadOptions& options) {
    const MySqlOptions mysql = options.source.mysql();
    const Format format = parse_format(options.format);
    auto plan = std::make_shared<const ReadPlan>(plan_read(mysql, options.source.read_spec()));
    PayloadOptions payload;
    apply_encoding_flags(options.encoding, payload);
    auto encoder = make_encoder(format, plan->columns, payload);
    PageReader reader(mysql, plan);

    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    std::string out = encoder->header();
    if (!out.empty()) out += '\n';

    std::uint64_t written = 0;
    const std::uint64_t limit = options.limit ? options.limit : UINT64_MAX;
    // The reader runs ahead of the encoder by up to two pages, so the server always has the next page's
    // query as soon as it sent the last row of a page: one page handed over per std::async left the
    // server idle whenever encoding a page took longer than reading the next.
    PageQueue pages(2);
    std::exception_ptr read_failure;
    std::thread read_ahead([&] {
        try {
            std::uint64_t read = 0;
            while (read < limit) {
                if (auto spare = pages.take_back()) reader.recycle(std::move(*spare));
                auto page = reader.next_page();
                if (!page) break;
                read += page->row_count();
                if (!pages.push(std::move(*page))) break;
            }
        } catch (...) {
            read_failure = std::current_exception();
        }
        pages.close();
    });
    try {
        while (auto page = pages.pop()) {
            for (std::size_t row = 0; row < page->row_count() && written < limit; ++row, ++written) {
                encoder->encode(*page, row, out);
                out += '\n';
            }
            write_or_throw(out);
            out.clear();
            pages.give_back(std::move(*page));
        }
    } catch (...) {
        pages.abandon();
        read_ahead.join();
        throw;
    }
    read_ahead.join();
    if (read_failure) std::rethrow_exception(read_failure);
    if (std::fflush(stdout) != 0) throw Error("cannot write to standard output");
    return 0;
}

}  // namespace rowpump::cli

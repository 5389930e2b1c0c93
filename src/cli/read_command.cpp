#include "cli/read_command.hpp"

#include <atomic>

#include "cli/command_help.hpp"
#include "cli/cursor_read.hpp"
#include "cli/schema_flags.hpp"
#include "cli/stdout_lines.hpp"
#include "route/router.hpp"
#include "rowpump/encode.hpp"
#include "run/page_pipeline.hpp"
#include "run/worker_connections.hpp"

namespace rowpump::cli {

CLI::App* setup_read(CLI::App& app, ReadOptions& options) {
    auto* command = add_command(app, "read", "Read a table page by page (no OFFSET) and print one row per line",
                                {"rowpump read --table orders --limit 10",
                                 "rowpump read --table orders --key created_at --where \"status = 'paid'\" --format csv",
                                 "rowpump read --mysql mysql://app@127.0.0.1:3306/shop --table orders "
                                 "--strategy deferred-join",
                                 "rowpump read --table orders --sort 'created_at DESC, id DESC' --first 20 --after TOKEN "
                                 "--page-info page.json"});
    add_source_options(*command, options.source);
    add_schema_options(*command, {{OptionId::read_format, options.format}, {OptionId::read_limit, options.limit}});
    add_encoding_flags(*command, options.encoding);
    add_schema_options(*command, {{OptionId::read_first, options.first},
                                  {OptionId::read_after, options.after},
                                  {OptionId::read_last, options.last},
                                  {OptionId::read_before, options.before},
                                  {OptionId::read_sort, options.sort},
                                  {OptionId::read_filter, options.filter},
                                  {OptionId::read_jump, options.page},
                                  {OptionId::read_page_info, options.page_info},
                                  {OptionId::read_approximate, options.approximate}});
    return command;
}

int run_read(const ReadOptions& options) {
    if (reads_cursor_page(options)) return run_cursor_read(options);
    const MySqlOptions mysql = options.source.mysql();
    auto plan = std::make_shared<const ReadPlan>(plan_read(mysql, options.source.read_spec()));
    PayloadOptions payload;
    apply_encoding_flags(options.encoding, payload);
    const auto encoder = make_encoder(options.format, plan->columns, payload);
    const Router router(RouteSpec{}, "", *plan);  // no routing: every row is a message ready now
    const std::unique_ptr<RangeReader> reader = range_reader(PageReader(mysql, plan));

    // The backfill's pipeline (run/page_pipeline.hpp) with standard output as its sink: the next page is
    // read while the one before is encoded and written, so the server gets the next page's query as soon
    // as it sent a page (a read that waited for each page to be written took 0.95 s for 1M rows, 0.74 s).
    const std::uint64_t limit = options.limit ? options.limit : UINT64_MAX;
    std::uint64_t read = 0;
    std::uint64_t written = 0;
    std::atomic<bool> enough_read{false};
    const std::string header = encoder->header();
    bool header_written = false;
    StdoutLines out;
    PipelineHooks hooks;
    hooks.on_read = [&](std::size_t rows) {
        read += rows;
        if (read >= limit) enough_read.store(true);
    };
    hooks.write = [&](const EncodedPage& page) {
        // The header goes out with the first page: a read that fails before it, or finds no row, prints nothing.
        if (!header_written && !header.empty()) out.add(header);
        header_written = true;
        for (std::size_t row = 0; row < page.messages.size() && written < limit; ++row, ++written)
            out.add(page.messages[row].payload);
        out.flush();
        return written < limit;
    };
    stream_pages(*reader, PageEncoder(*encoder, router), hooks, enough_read);
    return 0;
}

}  // namespace rowpump::cli

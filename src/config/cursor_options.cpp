// `rowpump read`'s pages for applications (docs/cursor_pagination.md): Relay's first/after, last/before,
// the sort, the filter, a jump to page N, and where the page info goes.
#include "config/option_makers.hpp"

namespace rowpump::config::makers {

std::vector<OptionSpec> cursor_read_options() {
    using enum OptionId;
    return {
        whole(read_first, "--first", "",
              "Read one page of this many rows from the start, or after --after (needs --sort and a signing key in "
              "ROWPUMP_CURSOR_KEY or ROWPUMP_CURSOR_KEY_FILE)",
              {1, 10'000}, std::nullopt),
        text(read_after, "--after", "", "With --first: the page after this token (a page's end_cursor)"),
        whole(read_last, "--last", "", "Read one page of this many rows from the end, or before --before", {1, 10'000},
              std::nullopt),
        text(read_before, "--before", "", "With --last: the page before this token (a page's start_cursor)"),
        text(read_sort, "--sort", "",
             "The pages' order: NOT NULL columns that end in a unique key, e.g. 'created_at DESC, id DESC'"),
        names(read_filter, "--filter", "",
              "With --first or --last: only rows where COLUMN=VALUE (values bound, never spliced into SQL; "
              "comma-separated, so a value holds no comma here)"),
        whole(read_jump, "--page", "",
              "With --first N: page number P exactly, counted through the sort's index (cost grows with P * N "
              "index entries)",
              {1, UINT64_MAX}, std::nullopt),
        text(read_page_info, "--page-info", "",
             "With --first or --last: write the page info (start_cursor, end_cursor, has_next_page, "
             "has_previous_page, page_number, method) as one JSON object to this file"),
        flag(read_approximate, "--approximate", "",
             "With --page: page about P, from index estimates, in milliseconds at any depth (page_info's method "
             "says approximate, or exact where estimates cannot serve, e.g. with --filter)"),
    };
}

}  // namespace rowpump::config::makers

#pragma once
// `rowpump read --first N [--after TOKEN]` and `--last N [--before TOKEN]`: one page of a sorted list
// with signed cursor tokens (rowpump/cursor.hpp), its rows printed as `read` prints rows and its page
// info written as JSON to --page-info.
#include "cli/read_command.hpp"

namespace rowpump::cli {

// Whether the options ask for a cursor page (--first or --last) rather than a read of the whole table.
bool reads_cursor_page(const ReadOptions& options);
// Without a signing key, or with flags that do not go together, throws UsageError (exit 2, one line).
int run_cursor_read(const ReadOptions& options);

}  // namespace rowpump::cli

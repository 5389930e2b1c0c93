// The options of backfill and run that are not of the job (--dry-run, --summary-json, --set), and those of
// `rowpump read` and `rowpump partition`: each command's own flags, described as a job's options are.
#include "config/option_makers.hpp"

namespace rowpump::config::makers {

namespace {

using enum OptionId;

}  // namespace

std::vector<OptionSpec> command_option_table() {
    std::vector<OptionSpec> options;
    const auto add = [&](std::vector<OptionSpec> group) {
        for (auto& spec : group) options.push_back(std::move(spec));
    };
    add(in_scope("backfill, run",
                 {
                     flag(dry_run, "--dry-run", "", "Print the plan (ranges and their first SQL); write nothing"),
                     text(summary_json, "--summary-json", "",
                          "Also write the summary as JSON to this file (checked before the run starts; if it cannot "
                          "be written at the end, the run exits 1 and says that the rows were written)"),
                 }));
    add(in_scope("run, explain",
                 {text(overrides, "--set", "",
                       "Override a value of the file: path=value, e.g. --set source.page_size=500 --set workers=4 "
                       "(repeatable; [a, b] or {k: v} for a list or map; an empty value unsets)")}));
    add(in_scope("read", {
                             choice(read_format, "--format", "", "Output format", Format::json, {"json", "csv"}),
                             whole(read_limit, "--limit", "", "Stop after this many rows, at least 1 (default: all)",
                                   {1, UINT64_MAX}, std::nullopt),
                         }));
    add(in_scope("read", cursor_read_options()));
    add(in_scope(
        "partition",
        {
            whole(plan_partitions, "--partitions", "", "Number of ranges (fewer when the table has fewer rows)",
                  {1, 1'000'000}, std::nullopt),
            choice(plan_strategy, "--strategy", "",
                   "balanced (default): about equal rows per range, any key. A key that starts with an integer, a "
                   "date or datetime, or text, on a table of more than 100,000 rows and without --where, is planned "
                   "from index estimates (a fraction of a percent of the rows read); otherwise the key's index is "
                   "read to place the boundaries: (2N-1)/N times the rows up to 10M rows or with --where, about once "
                   "above. minmax: equal key widths between the lowest and highest key, a single integer key, "
                   "instant. The last line says how the plan was made",
                   PartitionStrategy::balanced, {"balanced", "minmax"}),
            flag(plan_json, "--json", "", "Print a JSON array of {lo, hi, estimated_rows}; open bounds are null"),
        }));
    return options;
}

}  // namespace rowpump::config::makers

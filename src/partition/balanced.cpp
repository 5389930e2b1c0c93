// balanced: boundaries placed by position in key order, so ranges hold about the same number of rows
// whatever the key's type (composite, strings, dates) or distribution (a skewed key included). Positions
// are found with `ORDER BY key LIMIT 1 OFFSET n` on key-only queries that each start where the previous
// one stopped, so a walk reads the key's index once from end to end. Large tables whose key starts with an
// integer column skip the walk: plan_by_estimates (estimated.cpp) places their boundaries from estimates.
#include <algorithm>

#include "log.hpp"
#include "partition/planners.hpp"
#include "partition/split_points.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// What a walk over the index decided: increasing boundaries and the rows of each range between them.
struct Walk {
    std::vector<KeyValue> points;
    std::vector<std::uint64_t> rows;  // points.size() + 1 entries
};

// With the exact total known, boundary i is the key `step` rows after boundary i - 1, where `step` spreads
// the rows left evenly over the ranges left: sizes differ by at most one row. Never more ranges than rows,
// so no range is empty.
Walk counted_walk(KeyIndex& index, std::size_t count, std::uint64_t total) {
    Walk walk;
    const std::uint64_t parts = std::min<std::uint64_t>(count, total);
    std::uint64_t remaining = total;
    PageBounds from;
    for (std::uint64_t placed = 1; placed < parts; ++placed) {
        const std::uint64_t ranges_left = parts - placed + 1;
        const std::uint64_t step = remaining / ranges_left + (remaining % ranges_left != 0);
        auto boundary = index.nth(from, step);
        // Rows were deleted since the count: the last range takes whatever is left.
        if (!boundary) break;
        walk.points.push_back(*boundary);
        walk.rows.push_back(step);
        remaining -= step;
        from = {std::move(boundary), true, std::nullopt};
    }
    walk.rows.push_back(remaining);
    return walk;
}

struct Sample {
    KeyValue key;
    std::uint64_t position;  // the rows before it in key order
};

struct SampledIndex {
    std::vector<Sample> samples;  // in key order
    std::uint64_t total = 0;      // exact: the walk went to the end
    std::uint64_t stride = 0;     // the widest gap between samples
};

// One pass over the index taking a sample every `stride` rows; positions are exact because each step's
// length is known. `planned` is the number of samples the stride was chosen for.
SampledIndex sample_index(KeyIndex& index, std::uint64_t stride, std::size_t planned) {
    SampledIndex out;
    PageBounds from;
    std::uint64_t position = 0;
    while (auto key = index.nth(from, stride)) {
        position += stride;
        out.samples.push_back({*key, position});
        from = {std::move(key), true, std::nullopt};
        // Statistics that undercount the table would make for many more (shorter) steps than planned:
        // widening the stride each time the plan is exceeded keeps the number of queries in check.
        if (out.samples.size() % planned == 0) stride *= 2;
    }
    // Fewer than `stride` rows are left from the last sample (or the start): count them exactly.
    out.total = position + index.count(from, stride);
    out.stride = stride;
    return out;
}

// The sample nearest to each ideal boundary i * total / parts, never reusing one, so the boundaries
// increase strictly.
Walk pick_boundaries(const SampledIndex& sampled, std::size_t count) {
    Walk walk;
    const auto& samples = sampled.samples;
    std::uint64_t previous = 0;
    auto next = samples.begin();
    const std::uint64_t parts = std::min<std::uint64_t>(count, sampled.total);
    const std::vector<std::uint64_t> targets =
        parts > 1 ? split_points(std::uint64_t{0}, sampled.total - 1, parts) : std::vector<std::uint64_t>{};
    for (std::uint64_t target : targets) {
        next = std::lower_bound(next, samples.end(), target,
                                [](const Sample& sample, std::uint64_t value) { return sample.position < value; });
        auto chosen = next;
        if (next != samples.begin()) {
            auto before = std::prev(next);
            const bool unused = before->position > previous;
            if (unused && (next == samples.end() || target - before->position < next->position - target))
                chosen = before;
        }
        if (chosen == samples.end()) break;
        walk.points.push_back(chosen->key);
        walk.rows.push_back(chosen->position - previous);
        previous = chosen->position;
        next = std::next(chosen);
    }
    walk.rows.push_back(sampled.total - previous);
    return walk;
}

}  // namespace

PartitionPlan plan_balanced(KeyIndex& index, const ReadPlan& plan, std::size_t count,
                            const BalancedOptions& options) {
    if (count == 0) throw UsageError("the number of partitions must be at least 1");
    Walk walk;
    const std::uint64_t statistics = plan.spec.where.empty() ? index.table_rows_estimate() : 0;
    std::string method;
    if (statistics > options.estimate_above_rows && can_plan_by_estimates(index, plan)) {
        if (auto estimated = plan_by_estimates(index, plan, count)) return std::move(*estimated);
        method = "; index estimates could not balance it: a value of the key's first column holds too many rows";
    }
    if (!plan.spec.where.empty() || statistics <= options.exact_count_limit) {
        walk = counted_walk(index, count, index.count({}));
        method = (plan.spec.where.empty() ? "an exact count, then a walk over the key's index"
                                          : "an exact count, then a walk over the key's index (index estimates "
                                            "cannot see what --where keeps)") + method;
    } else {
        const std::size_t planned = count * std::max<std::size_t>(1, options.samples_per_partition);
        const SampledIndex sampled = sample_index(index, std::max<std::uint64_t>(1, statistics / planned), planned);
        // Statistics far above the truth leave samples too sparse to balance on (a boundary could miss
        // its place by more than an eighth of a range): the total is exact now, so walk again counted.
        const std::uint64_t parts = std::clamp<std::uint64_t>(sampled.total, 1, count);
        const bool too_sparse = sampled.stride > sampled.total / (4 * parts);
        log().debug("balanced partitions of {}: {} rows by statistics, {} sampled every {} rows{}",
                    plan.table.quoted_name(), statistics, sampled.total, sampled.stride,
                    too_sparse ? "; too sparse, walking again with the exact count" : "");
        walk = too_sparse ? counted_walk(index, count, sampled.total) : pick_boundaries(sampled, count);
        method = (too_sparse ? "a sampled walk over the key's index, then a counted one"
                             : "a sampled walk over the key's index (" + std::to_string(sampled.samples.size()) +
                                   " samples)") + method;
    }

    PartitionPlan result;
    result.strategy = PartitionStrategy::balanced;
    result.method = std::move(method);
    auto ranges = ranges_between(walk.points);
    for (std::size_t i = 0; i < ranges.size(); ++i) result.partitions.push_back({std::move(ranges[i]), walk.rows[i]});
    // The rows with a NULL key are read by the first range, in the reader's NULL pass.
    result.partitions.front().estimated_rows += plan.null_key_rows;
    for (const auto& partition : result.partitions) result.estimated_rows += partition.estimated_rows;
    return result;
}

}  // namespace rowpump

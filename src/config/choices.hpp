#pragma once
// The names a user writes for each enum-valued option, one table per enum, read by the command line and
// the job file alike (each used to spell its own string-to-enum ternaries).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "rowpump/partition.hpp"
#include "rowpump/queue.hpp"
#include "rowpump/reader.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::config {

template <class E>
struct Choice {
    std::string_view name;
    E value;
};

// Specialised for each enum an option takes: `entries`, in the order errors and --help list them.
template <class E>
struct ChoiceTable;

template <>
struct ChoiceTable<DelayScore> {
    static constexpr Choice<DelayScore> entries[] = {{"ms", DelayScore::milliseconds}, {"s", DelayScore::seconds}};
};
template <>
struct ChoiceTable<PushSide> {
    static constexpr Choice<PushSide> entries[] = {{"rpush", PushSide::right}, {"lpush", PushSide::left},
                                                       {"xadd", PushSide::xadd}};
};
template <>
struct ChoiceTable<DelayedMembers> {
    static constexpr Choice<DelayedMembers> entries[] = {{"tagged", DelayedMembers::tagged},
                                                         {"bare", DelayedMembers::bare}};
};
template <>
struct ChoiceTable<SidekiqTimestamps> {
    static constexpr Choice<SidekiqTimestamps> entries[] = {{"seconds", SidekiqTimestamps::seconds},
                                                            {"ms", SidekiqTimestamps::milliseconds}};
};
template <>
struct ChoiceTable<Format> {
    static constexpr Choice<Format> entries[] = {{"json", Format::json},
                                                 {"csv", Format::csv},
                                                 {"template", Format::payload_template},
                                                 {"sidekiq", Format::sidekiq},
                                                 {"activejob", Format::activejob},
                                                 {"celery", Format::celery},
                                                 {"bullmq", Format::bullmq}};
};
template <>
struct ChoiceTable<BigNumbers> {
    static constexpr Choice<BigNumbers> entries[] = {{"number", BigNumbers::number}, {"string", BigNumbers::string}};
};
template <>
struct ChoiceTable<JsonColumns> {
    static constexpr Choice<JsonColumns> entries[] = {{"string", JsonColumns::string}, {"embed", JsonColumns::embed}};
};
template <>
struct ChoiceTable<CsvNull> {
    static constexpr Choice<CsvNull> entries[] = {{"empty", CsvNull::empty}, {"\\N", CsvNull::backslash_n}};
};
template <>
struct ChoiceTable<PartitionStrategy> {
    static constexpr Choice<PartitionStrategy> entries[] = {{"minmax", PartitionStrategy::minmax},
                                                            {"balanced", PartitionStrategy::balanced}};
};
template <>
struct ChoiceTable<PagingStrategy> {
    static constexpr Choice<PagingStrategy> entries[] = {{"keyset", PagingStrategy::keyset},
                                                         {"deferred-join", PagingStrategy::deferred_join},
                                                         {"id-in", PagingStrategy::id_in},
                                                         {"offset", PagingStrategy::offset}};
};
template <>
struct ChoiceTable<NullKeys> {
    static constexpr Choice<NullKeys> entries[] = {{"refuse", NullKeys::refuse}, {"first", NullKeys::read_first}};
};

template <>
struct ChoiceTable<ClaimMode> {
    static constexpr Choice<ClaimMode> entries[] = {{"skip-locked", ClaimMode::skip_locked},
                                                    {"update-then-select", ClaimMode::update_then_select}};
};

template <class E>
std::vector<std::string> choice_names() {
    std::vector<std::string> names;
    for (const auto& entry : ChoiceTable<E>::entries) names.emplace_back(entry.name);
    return names;
}

// nullopt for a name the table does not hold (the front ends refuse it first, listing choice_names).
template <class E>
std::optional<E> parse_choice(std::string_view name) {
    for (const auto& entry : ChoiceTable<E>::entries)
        if (entry.name == name) return entry.value;
    return std::nullopt;
}

// The value `name` names, for the library's own parse functions (parse_format, ...): throws UsageError
// "unknown <what> 'x': expected a, b or c" with the table's names, in its order.
template <class E>
E parse_choice_or_throw(const std::string& name, std::string_view what) {
    if (const auto value = parse_choice<E>(name)) return *value;
    const std::vector<std::string> names = choice_names<E>();
    std::string expected;
    for (std::size_t i = 0; i < names.size(); ++i)
        expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    throw UsageError("unknown " + std::string(what) + " '" + name + "': expected " + expected);
}

// `unknown` for a value the table does not hold.
template <class E>
std::string_view choice_name(E value, std::string_view unknown = {}) {
    for (const auto& entry : ChoiceTable<E>::entries)
        if (entry.value == value) return entry.name;
    return unknown;
}

}  // namespace rowpump::config

#pragma once
// How the option tables (option_schema.cpp for a job's options, command_options.cpp and queue_options.cpp
// for the commands' own) write one option: a maker per kind. Private to src/config.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "config/choices.hpp"
#include "config/option_schema.hpp"

namespace rowpump::config::makers {

inline std::string number_text(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", value);
    return buffer;
}

// The fields every option has; a maker per kind adds its own.
inline OptionSpec described(OptionId id, ValueKind kind, std::string cli, std::string yaml, std::string help) {
    OptionSpec spec;
    spec.id = id;
    spec.kind = kind;
    spec.cli = std::move(cli);
    spec.yaml = std::move(yaml);
    spec.help = std::move(help);
    return spec;
}

inline OptionSpec text(OptionId id, std::string cli, std::string yaml, std::string help,
                       std::string default_text = {}) {
    OptionSpec spec = described(id, ValueKind::text, std::move(cli), std::move(yaml), std::move(help));
    spec.default_text = std::move(default_text);
    return spec;
}

inline OptionSpec names(OptionId id, std::string cli, std::string yaml, std::string help) {
    return described(id, ValueKind::names, std::move(cli), std::move(yaml), std::move(help));
}

inline OptionSpec flag(OptionId id, std::string cli, std::string yaml, std::string help) {
    OptionSpec spec = described(id, ValueKind::flag, std::move(cli), std::move(yaml), std::move(help));
    spec.default_text = "false";
    return spec;
}

// `fallback`: none when the option has no default of its own (it then follows another, or is unset).
inline OptionSpec whole(OptionId id, std::string cli, std::string yaml, std::string help, WholeBounds bounds,
                        std::optional<std::uint64_t> fallback) {
    OptionSpec spec = described(id, ValueKind::whole, std::move(cli), std::move(yaml), std::move(help));
    if (fallback) spec.default_text = std::to_string(*fallback);
    spec.whole = bounds;
    return spec;
}

inline OptionSpec real(OptionId id, std::string cli, std::string yaml, std::string help, NumberBounds bounds,
                       double fallback) {
    OptionSpec spec = described(id, ValueKind::real, std::move(cli), std::move(yaml), std::move(help));
    spec.default_text = number_text(fallback);
    spec.real = bounds;
    return spec;
}

// `names`: the choices offered, when only some of the enum's are (rowpump read writes json or csv), or in
// another order; every one must be in the enum's table.
template <class E>
OptionSpec choice(OptionId id, std::string cli, std::string yaml, std::string help, E fallback,
                  std::vector<std::string> names = choice_names<E>()) {
    OptionSpec spec = described(id, ValueKind::choice, std::move(cli), std::move(yaml), std::move(help));
    spec.default_text = std::string(choice_name(fallback));
    spec.choices = std::move(names);
    return spec;
}

// A choice of names that stand for no enum of the library (queue stats --format): the value is the name,
// the first one the default.
inline OptionSpec named_choice(OptionId id, std::string cli, std::string help, std::vector<std::string> names) {
    OptionSpec spec = described(id, ValueKind::choice, std::move(cli), "", std::move(help));
    spec.default_text = names.front();
    spec.choices = std::move(names);
    return spec;
}

// The options of one command, not of a job file: `scope` names the command.
inline std::vector<OptionSpec> in_scope(const std::string& scope, std::vector<OptionSpec> options) {
    for (auto& spec : options) spec.scope = scope;
    return options;
}

// The tables of the commands' own options, in the order of OptionId.
std::vector<OptionSpec> command_option_table();  // backfill and run, read, partition
std::vector<OptionSpec> cursor_read_options();   // read's pages: --first, --after, ... (cursor_options.cpp)
std::vector<OptionSpec> queue_option_table();    // rowpump queue ...

}  // namespace rowpump::config::makers

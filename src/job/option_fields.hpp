#pragma once
// Job-file fields read as the option schema describes them (config/option_schema.hpp): the key is the
// last part of the option's YAML path, and kind, choices and bounds are the schema's, as on the command
// line. Each read returns the field (for errors about it), or nullopt when the key is absent.
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "config/choices.hpp"
#include "config/option_error.hpp"
#include "config/option_schema.hpp"
#include "job/yaml_fields.hpp"

namespace rowpump::job {

using config::OptionId;

// The schema's description of `id`, checked to be of `kind` and to live in `section` (a bug otherwise).
const config::OptionSpec& field_spec(const Section& section, OptionId id, config::ValueKind kind);
// The field of `id` in `section`, when given.
std::optional<Field> option_field(const Section& section, OptionId id);

std::optional<Field> read_option(const Section& section, OptionId id, std::string& target);
std::optional<Field> read_option(const Section& section, OptionId id, std::vector<std::string>& target);
std::optional<Field> read_option(const Section& section, OptionId id, bool& target);
std::optional<Field> read_option(const Section& section, OptionId id, std::uint64_t& target);
std::optional<Field> read_option(const Section& section, OptionId id, double& target);

template <class E>
    requires std::is_enum_v<E>
std::optional<Field> read_option(const Section& section, OptionId id, E& target) {
    const auto& spec = field_spec(section, id, config::ValueKind::choice);
    auto field = option_field(section, id);
    if (field) target = *config::parse_choice<E>(field->choice(spec.choices));
    return field;
}

// A ConfigError at `field` for an error of a check: an OptionError with its options spelled as in a job
// file (without the field's path in front when the message starts with it), any other UsageError as it is.
[[noreturn]] void fail_at(const Field& field, const std::exception& error);

// Runs `check`; its UsageError becomes a ConfigError at `field` (fail_at).
template <class Check>
void at_field(const Field& field, Check&& check) {
    try {
        check();
    } catch (const ConfigError&) {
        throw;
    } catch (const UsageError& error) {
        fail_at(field, error);
    }
}

// Runs `check`; its OptionError becomes a ConfigError at the field of the option it is about (its first),
// found in `root`, or naming no line when that option is not in the file.
void at_option(const Origin& origin, const YAML::Node& root, const std::function<void()>& check);

}  // namespace rowpump::job

#include "job/yaml_fields.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "job/env_expand.hpp"
#include "job/suggest.hpp"
#include "job/yaml_document.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

namespace rowpump::job {

namespace {

std::string quoted(const std::string& text) { return "'" + redact_url(text) + "'"; }

std::string joined(const std::vector<std::string>& names, const char* separator) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : separator) + name;
    return out;
}

std::string section_name(const std::string& path) { return path.empty() ? "the job file" : path; }

// The override that set `path` or a map or list around it.
const std::string* override_of(const Origin& origin, const std::string& path) {
    for (const auto& [set_path, shown] : origin.overrides)
        if (path == set_path || path.starts_with(set_path + ".")) return &shown;
    return nullptr;
}

// An override that set something inside `path` (which then has no position in the file).
const std::string* override_inside(const Origin& origin, const std::string& path) {
    for (const auto& [set_path, shown] : origin.overrides)
        if (path.empty() || set_path.starts_with(path + ".")) return &shown;
    return nullptr;
}

}  // namespace

Field::Field(const Origin& origin, YAML::Node node, std::string path)
    : origin_(&origin), node_(std::move(node)), path_(std::move(path)), mark_(node_.Mark()) {}

void Field::fail_plain(const std::string& what) const {
    if (const auto* shown = override_of(*origin_, path_)) throw ConfigError(origin_->file, 0, 0, *shown + ": " + what);
    if (!mark_.is_null()) throw ConfigError(origin_->file, mark_.line + 1, mark_.column + 1, what);
    if (const auto* shown = override_inside(*origin_, path_)) throw ConfigError(origin_->file, 0, 0, *shown + ": " + what);
    throw ConfigError(origin_->file, 0, 0, what);
}

void Field::fail(const std::string& what) const {
    if (override_of(*origin_, path_) || path_.empty()) fail_plain(what);
    fail_plain(path_ + ": " + what);
}

std::string Field::shown() const {
    if (!node_.IsDefined() || node_.IsNull()) return "nothing";
    if (node_.IsSequence()) return "a list";
    if (node_.IsMap()) return "a map";
    return quoted(node_.Scalar());
}

std::string Field::text() const {
    if (!node_.IsScalar()) fail("expected a single value, got " + shown());
    std::string value;
    try {
        value = expand_env(node_.Scalar());
    } catch (const UnsetVariable& error) {
        fail_plain(std::string(error.what()) + ": export it, or give the value with --set " + path_ + "=...");
    } catch (const UsageError& error) {
        fail(error.what());
    }
    if (value.empty()) fail("expected a value, got an empty string");
    return value;
}

std::uint64_t Field::whole(std::uint64_t min, std::uint64_t max) const {
    const std::string value = text();
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    const bool parsed = error == std::errc() && end == value.data() + value.size();
    if (parsed && number >= min && number <= max) return number;
    std::string expected = "expected a whole number";
    if (max != UINT64_MAX) expected += " from " + std::to_string(min) + " to " + std::to_string(max);
    else if (min > 0) expected += " of at least " + std::to_string(min);
    fail(expected + ", got " + quoted(value));
}

double Field::number(std::optional<double> min, std::optional<double> max) const {
    const std::string value = text();
    double number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error == std::errc() && end == value.data() + value.size() && std::isfinite(number) &&
        (!min || number >= *min) && (!max || number <= *max))
        return number;
    const auto shown_bound = [](double bound) {
        char text[32];
        return std::string(text, std::to_chars(text, text + sizeof text, bound).ptr);
    };
    std::string expected = "expected a number";
    if (min && max) expected += " from " + shown_bound(*min) + " to " + shown_bound(*max);
    else if (min) expected += " of at least " + shown_bound(*min);
    else if (max) expected += " of at most " + shown_bound(*max);
    fail(expected + ", got " + quoted(value));
}

std::string Field::choice(const std::vector<std::string>& choices) const {
    const std::string value = text();
    if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
    std::string message = "expected one of " + joined(choices, ", ") + ", got " + quoted(value);
    if (auto suggestion = closest_match(value, choices)) message += " (did you mean '" + *suggestion + "'?)";
    fail(message);
}

std::vector<std::string> Field::names() const {
    if (node_.IsScalar()) return {text()};
    if (!node_.IsSequence() || node_.size() == 0)
        fail("expected a name or a list of names, got " + (node_.IsSequence() ? std::string("an empty list") : shown()));
    std::vector<std::string> out;
    for (const auto& item : items()) out.push_back(item.text());
    return out;
}

std::vector<Field> Field::items() const {
    if (!node_.IsSequence()) fail("expected a list, got " + shown());
    std::vector<Field> out;
    for (std::size_t i = 0; i < node_.size(); ++i) out.emplace_back(*origin_, node_[i], child_path(path_, std::to_string(i)));
    return out;
}

Section Field::section(std::vector<std::string> keys) const {
    if (!node_.IsMap()) fail("expected a map with the keys " + joined(keys, ", ") + "; got " + shown());
    return Section(*this, node_, *origin_, std::move(keys));
}

Section::Section(const Field& self, const YAML::Node& node, const Origin& origin, std::vector<std::string> keys)
    : self_(self), node_(node), origin_(&origin) {
    for (const auto& pair : node_) {
        const std::string& key = pair.first.Scalar();
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
        std::string message = "unknown key '" + key + "' in " + section_name(self_.path());
        if (auto suggestion = closest_match(key, keys)) message += ", did you mean '" + *suggestion + "'?";
        else message += "; expected one of: " + joined(keys, ", ");
        Field(origin, pair.first, child_path(self_.path(), key)).fail_plain(message);
    }
}

std::optional<Field> Section::optional(const std::string& key) const {
    const YAML::Node& node = node_;
    YAML::Node value = node[key];
    if (!value.IsDefined() || value.IsNull()) return std::nullopt;
    return Field(*origin_, value, child_path(self_.path(), key));
}

std::optional<Field> Section::given(const std::string& key) const {
    const YAML::Node& node = node_;
    YAML::Node value = node[key];
    if (!value.IsDefined()) return std::nullopt;
    return Field(*origin_, value, child_path(self_.path(), key));
}

Field Section::required(const std::string& key, const std::string& what) const {
    if (auto value = optional(key)) return *value;
    const YAML::Node& node = node_;
    const std::string message = "missing key '" + key + "' in " + section_name(self_.path()) + ": " + what;
    if (node[key].IsDefined()) Field(*origin_, node[key], child_path(self_.path(), key)).fail_plain(message);
    self_.fail_plain(message);
}

}  // namespace rowpump::job

#pragma once
// Typed, located reads from the job file's tree. Every failure is a ConfigError at the node it is about
// (1-based line and column), or naming the --set override that put the value there.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "job/overrides.hpp"

namespace rowpump::job {

// Where the tree came from: the file, and which paths --set overrides replaced.
struct Origin {
    std::string file;
    OverriddenPaths overrides;
};

class Section;

// One value of the tree and its dotted path ("source.page_size").
class Field {
public:
    Field(const Origin& origin, YAML::Node node, std::string path);

    const std::string& path() const { return path_; }
    bool is_list() const { return node_.IsSequence(); }

    // A non-empty single value with ${VAR} expanded.
    std::string text() const;
    // A whole number in [min, max].
    std::uint64_t whole(std::uint64_t min, std::uint64_t max) const;
    // A finite number (no NaN or infinity), >= min and <= max when they are given.
    double number(std::optional<double> min = std::nullopt, std::optional<double> max = std::nullopt) const;
    // One of `choices` (exact spelling); the error suggests the closest one.
    std::string choice(const std::vector<std::string>& choices) const;
    // A list of names, or a single name as a list of one.
    std::vector<std::string> names() const;
    // The elements of a list.
    std::vector<Field> items() const;
    // A map whose keys must all be in `keys`.
    Section section(std::vector<std::string> keys) const;

    // Throws ConfigError "<path>: <what>" at this value (or "--set ...: <what>" when it was overridden).
    [[noreturn]] void fail(const std::string& what) const;
    // Throws ConfigError "<what>" at this value, without naming the path.
    [[noreturn]] void fail_plain(const std::string& what) const;
    // How the value reads in an error: 'abc' (passwords redacted), a list, a map, nothing.
    std::string shown() const;

private:
    const Origin* origin_;
    YAML::Node node_;
    std::string path_;
    YAML::Mark mark_;
};

// A map of settings with a fixed set of keys. Unknown keys are errors that suggest the closest known one.
class Section {
public:
    Section(const Field& self, const YAML::Node& node, const Origin& origin, std::vector<std::string> keys);

    // The value of `key`; nullopt when it is absent or null.
    std::optional<Field> optional(const std::string& key) const;
    // The value of `key`, null included ("job_id:", --set job_id=); nullopt only when it is absent.
    std::optional<Field> given(const std::string& key) const;
    // The value of `key`; a ConfigError "missing key 'key' in <section>: <what>" when absent or null.
    Field required(const std::string& key, const std::string& what) const;
    // Whether `key` is given (not null).
    bool has(const std::string& key) const { return optional(key).has_value(); }

    const Field& self() const { return self_; }

private:
    Field self_;
    YAML::Node node_;
    const Origin* origin_;
};

}  // namespace rowpump::job

#include "job/override_schema.hpp"

#include <algorithm>
#include <vector>

#include "config/option_schema.hpp"
#include "job/suggest.hpp"

namespace rowpump::job {

namespace {

using config::OptionId;
using config::OptionSpec;
using config::ValueKind;

// Options whose job-file value may also be a list: its parts can be set one by one
// (sink.priority.levels.0.min, throttle.replicas.1, source.key.0).
bool takes_parts(const OptionSpec& spec) {
    return spec.kind == ValueKind::names || spec.id == OptionId::priority || spec.id == OptionId::replica;
}

std::string last_part(const std::string& path) { return path.substr(path.rfind('.') + 1); }

std::string underscored(std::string name) {
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

// A job's option that the command line alone takes, or one of run's own, named by the path's last part
// (read_timeout, resume).
const OptionSpec* command_line_option(const std::string& path) {
    const std::string name = underscored(last_part(path));
    for (const auto& spec : config::all_options())
        if (spec.yaml.empty() && (spec.scope.empty() || spec.scope.find("run") != std::string::npos) &&
            underscored(spec.cli.substr(2)) == name)
            return &spec;
    return nullptr;
}

std::string command_line_refusal(const std::string& path, const OptionSpec& spec) {
    std::string text = "'" + path + "' is not in a job file: " + spec.cli + " is an option of the command line";
    if (spec.id == OptionId::read_timeout || spec.id == OptionId::write_timeout)
        return text + "; in a job file it is a parameter of the source URL, e.g. --set "
                      "source.mysql=mysql://user@host/db?" + underscored(spec.cli.substr(2)) + "=10";
    if (spec.scope.find("run") != std::string::npos || spec.id == OptionId::resume)
        return text + ": give it to rowpump run (rowpump run JOB.yaml " + spec.cli + ")";
    return text + " (rowpump backfill " + spec.cli + "), which a job file does not take";
}

std::string unknown_refusal(const std::string& path) {
    std::vector<std::string> paths;
    std::vector<std::string> same_name;  // "page_size" given at the top: source.page_size
    for (const auto& spec : config::all_options()) {
        if (spec.yaml.empty()) continue;
        paths.push_back(spec.yaml);
        if (last_part(spec.yaml) == last_part(path)) same_name.push_back(spec.yaml);
    }
    const std::string text = "'" + path + "' is not an option of a job file";
    if (same_name.size() == 1) return text + "; did you mean '" + same_name.front() + "'?";
    if (const OptionSpec* spec = command_line_option(path)) return command_line_refusal(path, *spec);
    if (const auto close = closest_match(path, paths)) return text + "; did you mean '" + *close + "'?";
    return text + ": give a path such as source.page_size, sink.queue or workers (jobs/README.md lists them)";
}

}  // namespace

OverridePath check_override_path(const std::string& path) {
    for (const auto& spec : config::all_options()) {
        if (spec.yaml.empty()) continue;
        if (spec.yaml == path) return {{}, spec.kind == ValueKind::text && !takes_parts(spec)};
        if (spec.yaml.starts_with(path + ".")) return {};  // a section: source, sink.priority
        if (path.starts_with(spec.yaml + ".")) {
            if (takes_parts(spec)) return {};
            return {"'" + spec.yaml + "' holds a single value, not a map: cannot set '" +
                    path.substr(spec.yaml.size() + 1) + "' inside it"};
        }
    }
    return {unknown_refusal(path)};
}

}  // namespace rowpump::job

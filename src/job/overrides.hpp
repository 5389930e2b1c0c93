#pragma once
// --set path=value: changes to the job file's tree made before it is validated, so an override is
// checked exactly like the file (and its errors name the override instead of a line).
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

namespace rowpump::job {

// Dotted path ("source.page_size", "sink.priority.levels.0.min") -> the override that set it, as the
// user wrote it with any URL password redacted: "--set source.page_size=500".
using OverriddenPaths = std::map<std::string, std::string>;

// Applies each "path=value" to `root` (a map) in order; missing maps along the path are created. A value
// starting with '[' or '{' is parsed as a YAML flow list or map, unless the path is an option of one text
// value (sink.template={id}); an empty value unsets the key (null); any other value is taken literally as
// one string. Throws ConfigError naming the override for a malformed override, a path the option schema
// does not know (job/override_schema.hpp), or a path that runs through something that is not a map or list.
OverriddenPaths apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides, const std::string& file);

}  // namespace rowpump::job

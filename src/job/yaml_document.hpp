#pragma once
// The job file as a YAML tree. yaml-cpp keeps both of two equal keys in a map and lookups silently use
// the first; a job file with `table:` twice is a mistake, so duplicates are errors here.
#include <yaml-cpp/yaml.h>

#include <string>

namespace rowpump::job {

// Reads and parses `path`. Throws ConfigError for an unreadable file, a syntax error (at yaml-cpp's
// position) or a duplicated key (at its second occurrence).
YAML::Node read_yaml_file(const std::string& path);

// Parses `text` that came from `file` (for messages), with the same checks.
YAML::Node parse_yaml(const std::string& text, const std::string& file);

// "source.page_size" from a parent path and a key; the top level has the empty path.
std::string child_path(const std::string& parent, const std::string& key);

}  // namespace rowpump::job

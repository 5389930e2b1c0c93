#pragma once
// Each --set path=value checked against the option schema (config/option_schema.hpp) before it changes
// the job file's tree, so that a path the schema does not know is refused in one line that says what the
// path is and what to give instead ("did you mean 'source.page_size'?", "--resume is given to the
// command, not in a job file"), rather than as a key missing from some section. The value itself is
// checked by the file's own reader, with the option's bounds (load_job).
#include <string>

namespace rowpump::job {

struct OverridePath {
    std::string refusal;   // empty: the path is an option of a job file, a section, or inside a list or map
    bool literal = false;  // an option of one text value: a value such as "{id}" is that text, not a YAML map
};

OverridePath check_override_path(const std::string& path);

}  // namespace rowpump::job

#pragma once
// The NDJSON sink behind stdout and file:PATH.
#include <memory>
#include <string>

#include "rowpump/sink.hpp"

namespace rowpump {

// `path` is a file path, or empty for stdout. Throws UsageError when `path` is an existing regular file
// and `overwrite` is false.
std::unique_ptr<Sink> make_ndjson_sink(const std::string& path, bool overwrite);
// make_ndjson_sink's checks, opening nothing (an existing file is left as it is).
void check_ndjson_target(const std::string& path, bool overwrite);

}  // namespace rowpump

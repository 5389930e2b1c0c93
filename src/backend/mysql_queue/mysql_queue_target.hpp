#pragma once
// A MySQL queue table sink's target, read from its SinkSpec once: the server's connection options (with
// the spec's timeouts and retry budget), the table, and its priority lists. The sink and the job store take
// this, never the spec.
#include <string>
#include <vector>

#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

struct MySqlQueueTarget {
    MySqlOptions connection;
    std::string table;
    std::vector<std::string> priority_lists;  // highest first: priority column = size - level
};

// Throws UsageError for a malformed URI; nothing connects. The table's name is checked where it is used.
MySqlQueueTarget mysql_queue_target(const SinkSpec& spec);

}  // namespace rowpump

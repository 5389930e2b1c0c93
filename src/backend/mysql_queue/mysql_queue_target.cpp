#include "backend/mysql_queue/mysql_queue_target.hpp"

#include "backend/sink_target.hpp"

namespace rowpump {

MySqlQueueTarget mysql_queue_target(const SinkSpec& spec) {
    return {.connection = sink_mysql_options(spec), .table = spec.queue, .priority_lists = spec.priority_lists};
}

}  // namespace rowpump

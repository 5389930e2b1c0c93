#include "log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace rowpump {

spdlog::logger& log() {
    static std::shared_ptr<spdlog::logger> logger = [] {
        auto created = spdlog::stderr_color_mt("rowpump");
        created->set_pattern("rowpump: %l: %v");
        return created;
    }();
    return *logger;
}

}  // namespace rowpump

#include "queue/queue_admin.hpp"

#include <cstdio>

namespace rowpump {

std::string seconds_text(double seconds) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
    return buffer;
}

}  // namespace rowpump

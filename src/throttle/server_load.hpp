#pragma once
// The source server's load: global status values (Threads_running, ...) against their limits.
#include <optional>
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "rowpump/throttle.hpp"

namespace rowpump::throttle {

// The first limit that a value is over, as "Threads_running 40 > 25"; nullopt when none is.
struct LoadReading {
    std::optional<std::string> over;
};

class LoadProbe {
public:
    // Checks every variable against SHOW GLOBAL STATUS at once: an unknown name is a UsageError naming it.
    LoadProbe(const MySqlOptions& primary, std::vector<LoadLimit> max_load, std::vector<LoadLimit> critical_load);
    bool active() const { return !max_load_.empty() || !critical_load_.empty(); }
    // Reads the values once; `max` and `critical` say which limits they break. A failed look counts as over
    // the max limits (the server cannot be asked) but never as critical: only a measured value stops a run.
    void read(LoadReading& max, LoadReading& critical);

private:
    std::vector<LoadLimit> max_load_;
    std::vector<LoadLimit> critical_load_;
    std::string sql_;
    std::optional<mysql::Connection> connection_;
    bool broken_ = false;
};

}  // namespace rowpump::throttle

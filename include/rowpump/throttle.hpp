#pragma once
// Backing off a production primary: pause between pages while a replica lags or the server is busy, stop
// when it is overloaded, pause on request (a file, or HTTP), and show all of it (docs/throttling.md).
#include <chrono>
#include <string>
#include <vector>

#include "rowpump/options.hpp"

namespace ROWPUMP_EXPORT rowpump {

// A global status variable and its limit: "Threads_running=25".
struct LoadLimit {
    std::string variable;
    double limit = 0;
};

// "Threads_running=25,Threads_connected=400"; throws UsageError naming the bad part.
std::vector<LoadLimit> parse_load_limits(const std::string& text, const std::string& flag);

struct ThrottleSpec {
    // Replicas of the source server to watch; reading pauses between pages while any lags by more than
    // max_lag, has a stopped SQL or IO thread, or cannot tell its lag.
    std::vector<MySqlOptions> replicas;
    std::chrono::milliseconds max_lag{1500};
    // Replaces the measurement on every replica: its first cell is the lag in seconds (NULL: lagging).
    std::string lag_query;
    std::vector<LoadLimit> max_load;       // pause while any is over its limit
    std::vector<LoadLimit> critical_load;  // stop (exit 3, resumable with a job id) when one stays over
    std::string pause_file;                // pause while this file exists
    std::string stop_file;                 // stop (exit 3, resumable with a job id) once this file exists
    // Throttle while this SQL, run on the source server about once a second, returns a first cell that is
    // not 0 (or fails), as gh-ost's --throttle-query.
    std::string throttle_query;
    // Throttle while a GET of this http:// URL, about once a second, does not answer 200 (freno, as gh-ost's
    // --throttle-http).
    std::string throttle_http;
    std::string http;                      // HOST:PORT of the status and control endpoint; empty: none

    bool any() const {
        return !replicas.empty() || !max_load.empty() || !critical_load.empty() || !pause_file.empty() ||
               !stop_file.empty() || !throttle_query.empty() || !throttle_http.empty() || !http.empty();
    }
};

}  // namespace rowpump

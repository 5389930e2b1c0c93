#pragma once
// A GET whose answer is only its status code: what --throttle-http asks of a throttler such as freno
// ("200: go on; anything else: hold back"). rowpump's own few lines, as its server is (http_server.cpp):
// plain http://, one request per connection, every step within one deadline, nothing kept between checks.
#include <chrono>
#include <string>

namespace rowpump::http {

struct StatusUrl {
    std::string host;
    int port = 80;
    std::string target;  // "/check/rowpump/mysql/main", with its query
};

// Reads http://HOST[:PORT][/PATH]. Throws UsageError naming `flag` for anything else (https:// included:
// put the throttler behind a plain-HTTP address on the host, or use --throttle-query).
StatusUrl parse_status_url(const std::string& url, const std::string& flag);

struct StatusAnswer {
    int status = 0;       // the status code; 0 when there was none
    std::string problem;  // why there was none: "connection refused", "no answer within 1 s"
};

// GET `url` and read the status line, all within `deadline`. Never throws for a network failure.
StatusAnswer check_status(const StatusUrl& url, std::chrono::milliseconds deadline);

}  // namespace rowpump::http

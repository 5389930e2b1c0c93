#pragma once
// The values of URL parts and options that MySQL and Redis URLs share: ports, ssl-mode, the ssl-* files.
// Each throws UsageError naming the (redacted) URL. Private.
#include <string>

#include "rowpump/options.hpp"

namespace rowpump {

unsigned parse_port(const std::string& text, const std::string& url);
SslMode parse_ssl_mode(const std::string& text, const std::string& url);
// `path`, once it is known to name a readable file; `key` ("ssl-ca") names it in the error.
std::string readable_file(const std::string& key, const std::string& path, const std::string& url);

}  // namespace rowpump

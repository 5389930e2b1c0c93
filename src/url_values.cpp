#include "url_values.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "rowpump/error.hpp"
#include "url.hpp"

namespace rowpump {

unsigned parse_port(const std::string& text, const std::string& url) {
    char* end = nullptr;
    unsigned long port = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || port == 0 || port > 65535)
        throw UsageError("invalid port" + quoted_part(text, url) + " in " + redact_url(url) +
                         ": expected a number 1-65535");
    return static_cast<unsigned>(port);
}

SslMode parse_ssl_mode(const std::string& text, const std::string& url) {
    std::string mode;
    for (unsigned char c : text) mode += static_cast<char>(std::toupper(c));
    if (mode == "DISABLED") return SslMode::disabled;
    if (mode == "PREFERRED") return SslMode::preferred;
    if (mode == "REQUIRED") return SslMode::required;
    if (mode == "VERIFY_CA") return SslMode::verify_ca;
    if (mode == "VERIFY_IDENTITY") return SslMode::verify_identity;
    throw UsageError("invalid ssl-mode" + quoted_part(text, url) + " in " + redact_url(url) +
                     ": expected DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY");
}

// A missing or unreadable file is named now, not as the TLS library's vaguer error at the first connect.
std::string readable_file(const std::string& key, const std::string& path, const std::string& url) {
    std::ifstream in(path, std::ios::binary);
    std::error_code error;
    if (!in || std::filesystem::is_directory(path, error))
        throw UsageError("cannot read the " + key + " file '" + path + "' named in " + redact_url(url) + ": " +
                         (in ? "it is a directory" : std::strerror(errno)));
    return path;
}

}  // namespace rowpump

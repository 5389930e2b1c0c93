#pragma once
// A small parser for the scheme://user:pass@host:port/path?k=v URLs rowpump accepts. Private.
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rowpump {

struct UrlParts {
    std::string scheme;
    std::string user;
    std::string password;
    std::string host;
    std::string port;
    std::string path;  // without the leading '/', percent-decoded
    std::vector<std::pair<std::string, std::string>> query;
};

// Throws UsageError naming the (redacted) URL when it is malformed or its scheme is not one of `schemes`.
UrlParts parse_url(const std::string& url, std::initializer_list<const char*> schemes);

// Where the passwords in `text` are, as (offset, length): what redact_url() hides and main() masks in argv.
std::vector<std::pair<std::size_t, std::size_t>> password_spans(std::string_view text);

// redact_url() for the last line of a failed command: the placeholders of rowpump's own usage texts
// ("redis://[user:pass@]host") stay readable, unless one of the passwords `given` is that very word.
std::string redact_error_line(const std::string& text, const std::vector<std::string>& given);

// " 'fragment'" for an error about a part of `url`, or "" when that part may hold some of the password:
// a password with an unescaped '/', '?' or '@' spills into the host, port, path or options.
std::string quoted_part(const std::string& fragment, const std::string& url);

// The path of a file:PATH or file:///abs/path URI. Throws UsageError when it has none.
std::string target_file_path(const std::string& uri);

std::string percent_decode(const std::string& text);
std::string percent_encode(const std::string& text);

}  // namespace rowpump

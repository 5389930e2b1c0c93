#include "url.hpp"

#include <regex>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

namespace rowpump {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string decode_or_throw(const std::string& text, const std::string& url) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && (i + 2 >= text.size() || hex_value(text[i + 1]) < 0 || hex_value(text[i + 2]) < 0))
            throw UsageError("malformed percent-escape in " + redact_url(url) + ": write %XX with two hex digits");
    }
    return percent_decode(text);
}

}  // namespace

std::string percent_decode(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
            out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string percent_encode(const std::string& text) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 15];
        }
    }
    return out;
}

UrlParts parse_url(const std::string& url, std::initializer_list<const char*> schemes) {
    UrlParts parts;
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string::npos)
        throw UsageError("malformed URL '" + redact_url(url) + "': expected " + *schemes.begin() +
                         "://user:pass@host:port/...");
    parts.scheme = url.substr(0, scheme_end);
    bool known = false;
    for (const char* scheme : schemes) known = known || parts.scheme == scheme;
    if (!known)
        throw UsageError("unsupported URL scheme '" + parts.scheme + "' in " + redact_url(url) + ": expected " +
                         *schemes.begin() + "://...");

    std::string rest = url.substr(scheme_end + 3);
    std::string query;
    if (auto q = rest.find('?'); q != std::string::npos) {
        query = rest.substr(q + 1);
        rest.resize(q);
    }
    std::string authority = rest;
    if (auto slash = rest.find('/'); slash != std::string::npos) {
        authority = rest.substr(0, slash);
        parts.path = decode_or_throw(rest.substr(slash + 1), url);
    }
    // The password may itself contain '@' when not escaped: the last '@' ends the credentials.
    if (auto at = authority.rfind('@'); at != std::string::npos) {
        std::string credentials = authority.substr(0, at);
        authority = authority.substr(at + 1);
        auto colon = credentials.find(':');
        parts.user = decode_or_throw(credentials.substr(0, colon), url);
        if (colon != std::string::npos) parts.password = decode_or_throw(credentials.substr(colon + 1), url);
    }
    if (!authority.empty() && authority.front() == '[') {  // [::1]:port
        auto close = authority.find(']');
        if (close == std::string::npos) throw UsageError("malformed IPv6 host in " + redact_url(url));
        parts.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw UsageError("malformed host in " + redact_url(url));
            parts.port = authority.substr(close + 2);
        }
    } else if (auto colon = authority.rfind(':'); colon != std::string::npos) {
        parts.host = authority.substr(0, colon);
        parts.port = authority.substr(colon + 1);
        if (parts.port.empty()) throw UsageError("empty port in " + redact_url(url) + ": remove the ':' or add a port");
    } else {
        parts.host = authority;
    }
    std::size_t start = 0;
    while (start < query.size()) {
        auto end = query.find('&', start);
        if (end == std::string::npos) end = query.size();
        std::string item = query.substr(start, end - start);
        if (!item.empty()) {
            auto eq = item.find('=');
            if (eq == std::string::npos || eq == 0)
                throw UsageError("malformed option '" + item + "' in " + redact_url(url) + ": expected key=value");
            parts.query.emplace_back(item.substr(0, eq), decode_or_throw(item.substr(eq + 1), url));
        }
        start = end + 1;
    }
    return parts;
}

std::string redact_url(const std::string& text) {
    // scheme://user:secret@  ->  scheme://user:***@   (over-redacting to the last '@' of the word is safer than leaking)
    static const std::regex credentials(R"(([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*):[^\s]*@)");
    return std::regex_replace(text, credentials, "$1:***@");
}

}  // namespace rowpump

#include "url.hpp"

#include <optional>
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

std::string accepted_targets(TargetRole role) {
    if (role == TargetRole::sink)
        return "expected stdout, file:PATH, redis://[user:pass@]host:port/db or mysql://user:pass@host:port/db";
    return "expected redis://[user:pass@]host:port/db or mysql://user:pass@host:port/db (neither stdout nor a "
           "file holds a queue)";
}

}  // namespace

TargetKind target_kind(const std::string& uri, TargetRole role) {
    std::optional<TargetKind> kind;
    if (uri == "stdout") kind = TargetKind::stdout_stream;
    else if (uri.starts_with("file:")) kind = TargetKind::file;
    else if (uri.starts_with("redis://")) kind = TargetKind::redis;
    else if (uri.starts_with("mysql://") || uri.starts_with("mariadb://")) kind = TargetKind::mysql;
    const bool server = kind == TargetKind::redis || kind == TargetKind::mysql;
    if (!kind || (role == TargetRole::queue_source && !server))
        throw UsageError("unsupported " + std::string(role == TargetRole::sink ? "sink" : "queue source") + " '" +
                         redact_url(uri) + "': " + accepted_targets(role));
    return *kind;
}

std::string target_file_path(const std::string& uri) {
    std::string path = uri.substr(uri.starts_with("file://") ? 7 : 5);
    if (path.empty()) throw UsageError("no path in sink '" + uri + "': expected file:PATH");
    return path;
}

std::string quoted_part(const std::string& fragment, const std::string& url) {
    const auto scheme_end = url.find("://");
    const auto start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
    const auto at = url.rfind('@');
    const bool may_hold_password = at != std::string::npos && at >= start &&
                                   (fragment.find('@') != std::string::npos ||
                                    url.substr(start, at - start).find(fragment) != std::string::npos);
    return may_hold_password ? std::string() : " '" + fragment + "'";
}

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
    // "user:pass@host/x://..." has no scheme either: what precedes "://" is not a scheme when it holds ':' or '@'.
    if (scheme_end == std::string::npos || url.find_first_of(":@") < scheme_end)
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
                throw UsageError("malformed option" + quoted_part(item, url) + " in " + redact_url(url) +
                                 ": expected key=value");
            parts.query.emplace_back(item.substr(0, eq), decode_or_throw(item.substr(eq + 1), url));
        }
        start = end + 1;
    }
    return parts;
}

std::vector<std::pair<std::size_t, std::size_t>> password_spans(std::string_view text) {
    // scheme://user:secret@ anywhere, or user:secret@ at the start of a word (a URL whose scheme was left
    // out). The secret runs to the last '@' of the word: over-redacting is safer than leaking a password
    // that holds an unescaped '@'. Without a scheme, "scheme://user@host" must not read as user "scheme".
    static const std::regex credentials(
        R"([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:([^\s]*)@|(?:^|[\s'"(<=,])[^\s:/@'"]*:(?!//)([^\s]*)@)");
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    using Iterator = std::regex_iterator<std::string_view::const_iterator>;
    for (Iterator match(text.begin(), text.end(), credentials), end; match != end; ++match) {
        const int group = (*match)[1].matched ? 1 : 2;
        spans.emplace_back(static_cast<std::size_t>(match->position(group)),
                           static_cast<std::size_t>(match->length(group)));
    }
    return spans;
}

std::string redact_url(const std::string& text) {
    std::string out;
    std::size_t copied = 0;
    for (const auto& [start, length] : password_spans(text)) {
        out.append(text, copied, start - copied).append("***");
        copied = start + length;
    }
    return out.append(text, copied);
}

}  // namespace rowpump

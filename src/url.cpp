#include "url.hpp"

#include <algorithm>
#include <optional>
#include <set>

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

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_scheme_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '.' ||
           c == '-';
}
bool ends_scheme(char c) { return !is_scheme_char(c); }
bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
// The user part ends at these; the user of a URL without a scheme also ends at a quote.
bool ends_user(char c) { return is_space(c) || c == ':' || c == '/' || c == '@'; }
bool ends_bare_user(char c) { return ends_user(c) || c == '\'' || c == '"'; }
// What may stand before the user of a URL without a scheme: the start of a word, '=', a quote...
bool opens_bare_url(char c) { return c == '\'' || c == '"' || c == '(' || c == '<' || c == '=' || c == ','; }

// The first position at or after `from` where `stop` holds, or `end`. Asked with positions that never
// go down, it remembers its last answer, so a whole scan reads each character a bounded number of times.
template <bool (*stop)(char)>
class NextStop {
public:
    NextStop(std::string_view text, std::size_t end) : text_(text), end_(end) {}
    std::size_t operator()(std::size_t from) {
        if (from >= from_ && from <= found_ && found_ != npos) return found_;
        from_ = from;
        found_ = from;
        while (found_ < end_ && !stop(text_[found_])) ++found_;
        return found_;
    }

private:
    static constexpr std::size_t npos = std::string_view::npos;
    std::string_view text_;
    std::size_t end_;
    std::size_t from_ = 0;
    std::size_t found_ = npos;
};

// Where the password of the word [begin, end) starts, if it holds one ending at its last '@' (`at`).
std::optional<std::size_t> password_start(std::string_view text, std::size_t begin, std::size_t at) {
    NextStop<ends_scheme> scheme_end(text, at);
    NextStop<ends_user> user_end(text, at);
    NextStop<ends_bare_user> bare_user_end(text, at);
    // scheme://user:PASSWORD@ with the scheme starting at `p`.
    const auto with_scheme = [&](std::size_t p) -> std::optional<std::size_t> {
        if (!is_letter(text[p])) return std::nullopt;
        const std::size_t colon = scheme_end(p);
        if (colon + 3 > at || text.substr(colon, 3) != "://") return std::nullopt;
        const std::size_t user_stop = user_end(colon + 3);
        if (user_stop >= at || text[user_stop] != ':') return std::nullopt;
        return user_stop + 1;
    };
    // user:PASSWORD@ with the user starting at `u`, where the ':' does not start "://".
    const auto without_scheme = [&](std::size_t u) -> std::optional<std::size_t> {
        const std::size_t user_stop = bare_user_end(u);
        if (user_stop >= at || text[user_stop] != ':' || text.substr(user_stop + 1, 2) == "//") return std::nullopt;
        return user_stop + 1;
    };
    // Candidates from left to right, as a regular expression search would try them: at each position a
    // URL with a scheme before one without.
    if (begin > 0)
        if (auto found = without_scheme(begin)) return found;
    for (std::size_t p = begin; p < at; ++p) {
        if (auto found = with_scheme(p)) return found;
        if (p == 0)
            if (auto found = without_scheme(0)) return found;
        if (opens_bare_url(text[p]))
            if (auto found = without_scheme(p + 1)) return found;
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> password_spans(std::string_view text) {
    // scheme://user:secret@ anywhere, or user:secret@ at the start of a word or after = ' " ( < , (a URL
    // whose scheme was left out). The secret runs to the last '@' of its word: over-redacting is safer than
    // leaking a password that holds an unescaped '@'. Without a scheme, "scheme://user@host" must not read
    // as user "scheme". A hand-written scan, linear in time and constant in stack: std::regex recursed
    // once per character and overflowed the stack on an argument of some 28,000 characters.
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    std::size_t begin = 0;
    while (begin < text.size()) {
        while (begin < text.size() && is_space(text[begin])) ++begin;
        std::size_t end = begin;
        std::size_t at = std::string_view::npos;
        for (; end < text.size() && !is_space(text[end]); ++end)
            if (text[end] == '@') at = end;
        if (at != std::string_view::npos)
            if (const auto start = password_start(text, begin, at)) spans.emplace_back(*start, at - *start);
        begin = end;
    }
    return spans;
}

std::string redact_error_line(const std::string& text, const std::vector<std::string>& given) {
    static const std::set<std::string, std::less<>> placeholders{"pass", "PASS", "password", "PASSWORD", "***"};
    std::string out;
    std::size_t copied = 0;
    for (const auto& [start, length] : password_spans(text)) {
        const std::string_view span(text.data() + start, length);
        const bool given_word = std::find(given.begin(), given.end(), span) != given.end();
        if (placeholders.contains(span) && !given_word) continue;
        out.append(text, copied, start - copied).append("***");
        copied = start + length;
    }
    return out.append(text, copied);
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

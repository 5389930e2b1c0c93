#include "http/request_parser.hpp"

#include <algorithm>
#include <cctype>

namespace rowpump::http {

namespace {

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    const auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+' && plus_is_space) {
            out += ' ';
        } else if (text[i] != '%') {
            out += text[i];
        } else {
            if (i + 2 >= text.size()) return std::nullopt;
            const int high = hex(text[i + 1]);
            const int low = hex(text[i + 2]);
            if (high < 0 || low < 0) return std::nullopt;
            out += static_cast<char>(high * 16 + low);
            i += 2;
        }
    }
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

Parsed refuse(int status, std::string problem) {
    Parsed out;
    out.state = Parsed::State::refused;
    out.status = status;
    out.problem = std::move(problem);
    return out;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::optional<std::vector<std::pair<std::string, std::string>>> decode_query(std::string_view query) {
    std::vector<std::pair<std::string, std::string>> pairs;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view part = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (part.empty()) continue;
        const auto equals = part.find('=');
        auto name = percent_decode(part.substr(0, equals), true);
        const std::string_view raw = equals == std::string_view::npos ? std::string_view() : part.substr(equals + 1);
        auto value = percent_decode(raw, true);
        if (!name || !value) return std::nullopt;
        pairs.emplace_back(std::move(*name), std::move(*value));
    }
    return pairs;
}

Parsed parse_request(std::string_view received, const RequestLimits& limits) {
    const auto head_end = received.find("\r\n\r\n");
    if (head_end == std::string_view::npos) {
        if (received.size() > limits.max_head)
            return refuse(431, "the request line and headers are over " + std::to_string(limits.max_head) + " bytes");
        return {};
    }
    if (head_end + 4 > limits.max_head)
        return refuse(431, "the request line and headers are over " + std::to_string(limits.max_head) + " bytes");
    const std::string_view head = received.substr(0, head_end);
    const auto line_end = std::min(head.find("\r\n"), head.size());
    const std::string_view line = head.substr(0, line_end);
    // METHOD SP request-target SP HTTP-version
    const auto first = line.find(' ');
    const auto second = first == std::string_view::npos ? first : line.find(' ', first + 1);
    if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos)
        return refuse(400, "the request line is not METHOD TARGET HTTP/1.1");
    const std::string_view version = line.substr(second + 1);
    if (!version.starts_with("HTTP/1.")) return refuse(505, "only HTTP/1.x is served");
    Parsed out;
    out.request.method = std::string(line.substr(0, first));
    const std::string_view target = line.substr(first + 1, second - first - 1);
    if (!target.starts_with('/')) return refuse(400, "the target must be a path, /...");
    const auto question = target.find('?');
    auto path = percent_decode(target.substr(0, question), false);
    auto query = decode_query(question == std::string_view::npos ? std::string_view() : target.substr(question + 1));
    if (!path || !query) return refuse(400, "a bad % escape in the target");
    out.request.path = std::move(*path);
    out.request.query = std::move(*query);

    std::optional<std::size_t> content_length;
    for (std::size_t at = line_end; at < head.size();) {
        at += 2;
        const auto end = std::min(head.find("\r\n", at), head.size());
        const std::string_view field = head.substr(at, end - at);
        at = end;
        const auto colon = field.find(':');
        if (colon == std::string_view::npos || colon == 0) return refuse(400, "a header field without a name and ':'");
        const std::string_view name = field.substr(0, colon);
        const std::string_view value = trim(field.substr(colon + 1));
        out.request.headers.emplace_back(std::string(name), std::string(value));
        if (iequals(name, "Transfer-Encoding"))
            return refuse(501, "Transfer-Encoding is not served; send the body with Content-Length");
        if (!iequals(name, "Content-Length")) continue;
        if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string_view::npos)
            return refuse(400, "Content-Length must be a number");
        const std::size_t length = std::stoull(std::string(value));
        if (content_length && *content_length != length) return refuse(400, "two different Content-Length fields");
        content_length = length;
    }
    const std::size_t body_length = content_length.value_or(0);
    if (body_length > limits.max_body)
        return refuse(413, "the body is over " + std::to_string(limits.max_body) + " bytes");
    if (received.size() < head_end + 4 + body_length) return {};
    out.state = Parsed::State::complete;
    return out;
}

}  // namespace rowpump::http

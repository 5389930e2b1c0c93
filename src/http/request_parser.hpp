#pragma once
// Reads one HTTP/1.1 request out of the bytes a connection received so far (RFC 9112): the request
// line, the header fields and a body of Content-Length bytes. A request with neither Content-Length nor
// Transfer-Encoding has no body (section 6.3), so `curl -X POST URL` is complete at its empty line.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/http_server.hpp"

namespace rowpump::http {

struct RequestLimits {
    std::size_t max_head = 16 * 1024;  // request line and header fields: more is 431
    std::size_t max_body = 64 * 1024;  // more is 413
};

struct Parsed {
    enum class State { incomplete, complete, refused } state = State::incomplete;
    Request request;  // when complete
    int status = 0;  // when refused: 400, 413, 431, 501, 505
    std::string problem;  // when refused: one line for the client
};

Parsed parse_request(std::string_view received, const RequestLimits& limits);

// ASCII letters compared without their case, as header names, schemes and host names are.
bool iequals(std::string_view a, std::string_view b);

// "a=1&b=%20x&a=2" -> (a,1) (b, x) (a,2): in order, duplicates kept, '+' a space; nullopt for a bad % escape.
std::optional<std::vector<std::pair<std::string, std::string>>> decode_query(std::string_view query);

}  // namespace rowpump::http

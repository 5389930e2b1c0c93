#pragma once
// A Redis reply copied out of hiredis, so callers never hold (or free) a driver object. Error replies are
// not represented: Connection turns them into QueueError.
#include <string>
#include <vector>

namespace rowpump::redis {

struct Reply {
    enum class Type { nil, status, integer, string, array };

    Type type = Type::nil;
    long long integer = 0;       // Type::integer
    std::string text;            // Type::status and Type::string
    std::vector<Reply> elements; // Type::array

    bool is_nil() const noexcept { return type == Type::nil; }
};

}  // namespace rowpump::redis

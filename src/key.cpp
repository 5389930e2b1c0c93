#include "rowpump/key.hpp"

namespace rowpump {

std::string to_string(const KeyValue& value) {
    std::string out = "(";
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (i) out += ", ";
        if (auto s = std::get_if<std::int64_t>(&value[i])) out += std::to_string(*s);
        else if (auto u = std::get_if<std::uint64_t>(&value[i])) out += std::to_string(*u);
        else out += "'" + std::get<std::string>(value[i]) + "'";
    }
    return out + ")";
}

}  // namespace rowpump

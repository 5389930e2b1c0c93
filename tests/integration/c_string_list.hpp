#pragma once
// posix_spawn's argv and envp: pointers to the characters of each string, then the null that ends the list.
#include <string>
#include <vector>

namespace rowpump::test {

// The pointers point into `strings`, which must outlive them and not change meanwhile.
inline std::vector<char*> c_string_list(std::vector<std::string>& strings) {
    std::vector<char*> list;
    list.reserve(strings.size() + 1);
    for (auto& text : strings) list.push_back(text.data());
    list.push_back(nullptr);
    return list;
}

}  // namespace rowpump::test

#pragma once
// The message of an error a test expects, for checking what it says (or does not say).
#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace rowpump::test {

// What `action` throws as an `Expected`, or nothing when it returns. Any other exception passes
// through and fails the test.
template <class Expected, class Action>
std::optional<std::string> thrown(Action&& action) {
    try {
        action();
    } catch (const Expected& error) {
        return std::string(error.what());
    }
    return std::nullopt;
}

// As thrown(), for an action that must throw: "" and a test failure when it returns.
template <class Expected, class Action>
std::string error_of(Action&& action) {
    if (auto message = thrown<Expected>(action)) return *message;
    ADD_FAILURE() << "no error of the expected type";
    return {};
}

}  // namespace rowpump::test

#pragma once
// The message of an error a test expects, for checking what it says (or does not say).
#include <gtest/gtest.h>

#include <string>

namespace rowpump::test {

// What `action` throws as an `Expected`; "" and a test failure when it throws nothing. Any other
// exception passes through and fails the test.
template <class Expected, class Action>
std::string error_of(Action&& action) {
    try {
        action();
    } catch (const Expected& error) {
        return error.what();
    }
    ADD_FAILURE() << "no error of the expected type";
    return {};
}

}  // namespace rowpump::test

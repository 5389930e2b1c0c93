#pragma once
// Helpers the unit tests share: a file that lives as long as the test needs it, and the one-line usage
// error that bad input must give.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rowpump/error.hpp"

namespace rowpump::test {

// A file under the temp dir holding `content`, named uniquely in this process; removed with the object.
class TempFile {
public:
    explicit TempFile(const std::string& content, const std::string& suffix = "") {
        static int counter = 0;
        path_ = (std::filesystem::temp_directory_path() /
                 ("rp_unit_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter) + suffix))
                    .string();
        std::ofstream(path_, std::ios::binary) << content;
    }
    ~TempFile() { std::filesystem::remove(path_); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Runs `refused`, which must throw a UsageError (exit code 2) of one line that mentions `mentions`.
// Returns the message, for the caller's own checks ("" when nothing or something else was thrown).
template <class Call>
std::string one_line_usage_error(Call&& refused, const std::string& mentions) {
    try {
        refused();
        ADD_FAILURE() << "accepted: no UsageError mentioning '" << mentions << "'";
    } catch (const UsageError& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find(mentions), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
        return what;
    }
    return "";
}

}  // namespace rowpump::test

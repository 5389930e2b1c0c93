#pragma once
// What the status page's browser tests share: /status as parsed JSON, values read from the page's DOM
// (its data-value attributes hold the raw figures), waiting for the page to show something (it polls
// once a second), and where screenshots go.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "integration/http_client.hpp"
#include "integration/webdriver.hpp"

namespace rowpump::test {

inline bool has_text(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// The rows figure the page shows (#rows's data-value), or -1 before its first poll.
inline constexpr const char* rows_shown =
    "const v = document.getElementById('rows').dataset.value; return v === undefined || v === '' ? -1 : Number(v)";

inline rapidjson::Document status_json(int port) {
    rapidjson::Document json;
    json.Parse(http_request(port, "GET", "/status").body.c_str());
    if (json.HasParseError() || !json.IsObject()) {
        ADD_FAILURE() << "/status is not JSON";
        json.SetObject();
    }
    return json;
}

class PageView {
public:
    explicit PageView(Browser& browser) : browser_(browser) {}

    // A script's number (`return ...;`); -1 when it gave none.
    long long integer(const std::string& script) {
        const std::string value = browser_.script(script);
        char* end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        return end != value.c_str() ? static_cast<long long>(number) : -1;
    }

    // Polls `shown` every 100 ms until it holds (the page polls once a second) or `limit` passed.
    bool eventually(const std::function<bool()>& shown, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!shown()) {
            if (std::chrono::steady_clock::now() > deadline) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return true;
    }

private:
    Browser& browser_;
};

// Saves the page as `name` under the test's temporary directory, and under $ROWPUMP_SCREENSHOT_DIR when
// set (docs/images/ holds one so taken); fails when no PNG came.
inline void save_screenshot(Browser& browser, const std::string& name) {
    const std::string path = ::testing::TempDir() + name;
    EXPECT_TRUE(browser.screenshot(path)) << "no screenshot";
    EXPECT_GT(std::filesystem::exists(path) ? std::filesystem::file_size(path) : 0, 10000u) << "a blank screenshot";
    if (const char* dir = std::getenv("ROWPUMP_SCREENSHOT_DIR"))
        std::filesystem::copy_file(path, std::filesystem::path(dir) / name,
                                   std::filesystem::copy_options::overwrite_existing);
    std::filesystem::remove(path);
}

}  // namespace rowpump::test

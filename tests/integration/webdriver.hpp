#pragma once
// Headless Chromium driven through chromedriver's WebDriver HTTP API (W3C WebDriver): a page is loaded,
// its elements read and clicked as a person would, and a screenshot saved. Plain sockets and rapidjson,
// so that the tests need no client library; Debian's chromium and chromium-driver (scripts/setup.sh).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "integration/cli_process.hpp"
#include "integration/web_request.hpp"

namespace rowpump::test {

inline constexpr const char* chromium_path = "/usr/bin/chromium";
inline constexpr const char* chromedriver_path = "/usr/bin/chromedriver";

// Why a browser test cannot run here ("" when it can): Debian's chromium and chromium-driver are missing.
inline std::string browser_missing() {
    for (const char* path : {chromium_path, chromedriver_path})
        if (::access(path, X_OK) != 0)
            return std::string(path) + " is not installed (Debian: apt-get install chromium chromium-driver, as "
                                       "scripts/setup.sh does): the browser test cannot run";
    return "";
}

class Browser {
public:
    // Starts chromedriver on a port it picks, and a session of headless Chromium at `width` x `height`.
    Browser(int width = 1200, int height = 900) : log_(temp_file("chromedriver")), profile_(temp_file("chromium")) {
        std::filesystem::remove(profile_);
        std::filesystem::create_directories(profile_);
        const std::string marker = "started successfully on port ";
        if (spawn_child({chromedriver_path, "--port=0"}, {}, log_, log_, driver_) != 0) {
            ADD_FAILURE() << "cannot start " << chromedriver_path;
            driver_ = 0;
            return;
        }
        wait_until([&] {
            const std::string text = slurp(log_);
            if (const auto at = text.find(marker); at != std::string::npos) port_ = std::atoi(text.c_str() + at + marker.size());
            return port_ > 0;
        }, std::chrono::milliseconds(15000));
        if (port_ <= 0) {
            ADD_FAILURE() << "chromedriver did not say its port:\n" << slurp(log_);
            return;
        }
        const std::string size = "--window-size=" + std::to_string(width) + "," + std::to_string(height);
        const std::string session = call("POST", "/session",
            R"({"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"binary":")" +
            std::string(chromium_path) + R"(","args":["--headless","--no-sandbox","--disable-gpu","--disable-quic",)"
            R"("--no-first-run","--disable-background-networking","--disable-component-update","--disable-sync",)"
            R"("--disable-dev-shm-usage","--hide-scrollbars",")" + size + R"(","--user-data-dir=)" + profile_ +
            R"("]}}}})");
        rapidjson::Document json;
        json.Parse(session.c_str());
        if (!json.HasParseError() && json.IsObject() && json.HasMember("value") && json["value"].IsObject() &&
            json["value"].HasMember("sessionId"))
            session_ = json["value"]["sessionId"].GetString();
        else
            ADD_FAILURE() << "no WebDriver session: " << session << "\n" << slurp(log_);
    }

    ~Browser() {
        if (!session_.empty()) call("DELETE", "/session/" + session_, "");
        if (driver_ > 0) {
            ::kill(driver_, SIGTERM);
            int status = 0;
            ::waitpid(driver_, &status, 0);
        }
        std::remove(log_.c_str());
        std::error_code ignored;
        std::filesystem::remove_all(profile_, ignored);
    }
    Browser(const Browser&) = delete;
    Browser& operator=(const Browser&) = delete;

    bool ready() const { return !session_.empty(); }

    void go(const std::string& url) { session_call("POST", "/url", json_object("url", url)); }

    // The value a script returns (`return ...;`), as JSON text: "3", "\"paused\"", "null".
    std::string script(const std::string& body) {
        const std::string answer =
            session_call("POST", "/execute/sync", "{\"script\":" + json_string(body) + ",\"args\":[]}");
        rapidjson::Document json;
        json.Parse(answer.c_str());
        if (json.HasParseError() || !json.IsObject() || !json.HasMember("value")) return "<no answer: " + answer + ">";
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        json["value"].Accept(writer);
        return buffer.GetString();
    }

    // Clicks the element that `css` selects, as a mouse does (WebDriver's element click).
    void click(const std::string& css) { session_call("POST", "/element/" + element(css) + "/click", "{}"); }
    // Types `text` into the input `css` selects, after clearing it.
    void type(const std::string& css, const std::string& text) {
        const std::string id = element(css);
        session_call("POST", "/element/" + id + "/clear", "{}");
        session_call("POST", "/element/" + id + "/value", json_object("text", text));
    }
    // Accepts the confirm() dialog that is open.
    void accept_dialog() { session_call("POST", "/alert/accept", "{}"); }

    // Saves the page as PNG at `path`; false when no screenshot came.
    bool screenshot(const std::string& path) {
        rapidjson::Document json;
        json.Parse(session_call("GET", "/screenshot", "").c_str());
        if (json.HasParseError() || !json.IsObject() || !json.HasMember("value") || !json["value"].IsString()) return false;
        const std::string png = base64_decode(json["value"].GetString());
        std::ofstream(path, std::ios::binary) << png;
        return png.rfind("\x89PNG", 0) == 0;
    }

private:
    std::string call(const std::string& method, const std::string& path, const std::string& body) {
        const WebAnswer answer = web_request(port_, method, path, body);
        if (answer.status != 200) ADD_FAILURE() << method << " " << path << " " << body << ": " << answer.status << " " << answer.body;
        return answer.body;
    }
    std::string session_call(const std::string& method, const std::string& path, const std::string& body) {
        return call(method, "/session/" + session_ + path, body);
    }

    // The WebDriver id of the first element `css` selects ("" and a failure when none does).
    std::string element(const std::string& css) {
        rapidjson::Document json;
        json.Parse(session_call("POST", "/element", "{\"using\":\"css selector\",\"value\":" + json_string(css) + "}").c_str());
        constexpr const char* key = "element-6066-11e4-a52e-4f735466cecf";
        if (!json.HasParseError() && json.IsObject() && json.HasMember("value") && json["value"].IsObject() &&
            json["value"].HasMember(key))
            return json["value"][key].GetString();
        ADD_FAILURE() << "no element " << css;
        return "";
    }

    static std::string json_string(const std::string& text) {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        writer.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
        return buffer.GetString();
    }
    static std::string json_object(const std::string& key, const std::string& value) {
        return "{" + json_string(key) + ":" + json_string(value) + "}";
    }
    static std::string base64_decode(const std::string& text) {
        std::string out;
        unsigned value = 0;
        int bits = 0;
        for (const char c : text) {
            const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            const char* at = c == '\0' ? nullptr : std::strchr(alphabet, c);
            if (at == nullptr) continue;  // padding, line breaks
            value = (value << 6) | static_cast<unsigned>(at - alphabet);
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                out.push_back(static_cast<char>((value >> bits) & 0xFF));
            }
        }
        return out;
    }

    std::string log_;
    std::string profile_;
    pid_t driver_ = 0;
    int port_ = 0;
    std::string session_;
};

}  // namespace rowpump::test

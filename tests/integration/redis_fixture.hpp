#pragma once
// Tests against Redis: the local server that scripts/services.sh starts (ROWPUMP_REDIS_URL), and private
// throwaway servers a test can kill and restart. Every key a test creates starts with rp_test: and carries
// the process id (parallel ctest processes never collide); the fixture deletes them all at the end.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "integration/c_string_list.hpp"
#include "redis/connection.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

extern char** environ;

namespace rowpump::test {

inline const char* const start_redis_hint =
    "ROWPUMP_REDIS_URL is not set: integration tests need the local Redis. Start it and export its address "
    "with:  bash scripts/services.sh start && eval \"$(bash scripts/services.sh env)\"";

inline std::optional<std::string> redis_url_from_env() {
    const char* url = std::getenv("ROWPUMP_REDIS_URL");
    if (!url || !*url) return std::nullopt;
    return std::string(url);
}

// Sets `url` from ROWPUMP_REDIS_URL and opens `connection` to it; a fatal test failure, which the
// caller's SetUp checks with HasFatalFailure(), when the variable is unset or the server does not answer.
inline void connect_local_redis(std::string& url, std::optional<redis::Connection>& connection) {
    const auto from_env = redis_url_from_env();
    if (!from_env) FAIL() << start_redis_hint;
    url = *from_env;
    try {
        connection.emplace(RedisOptions::from_url(url));
    } catch (const Error& error) {
        FAIL() << "cannot connect to the local Redis (" << error.what()
               << "): is it running? Run: bash scripts/services.sh start";
    }
}

// Every element of a list, in order.
inline std::vector<std::string> list_items(redis::Connection& connection, const std::string& key) {
    std::vector<std::string> out;
    for (auto& element : connection.command({"LRANGE", key, "0", "-1"}).elements)
        out.push_back(std::move(element.text));
    return out;
}

// Every key matching `pattern` (SCAN, so a big server is not blocked).
inline std::vector<std::string> matching_keys(redis::Connection& connection, const std::string& pattern) {
    std::vector<std::string> keys;
    std::string cursor = "0";
    do {
        auto reply = connection.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        cursor = reply.elements.at(0).text;
        for (auto& key : reply.elements.at(1).elements) keys.push_back(std::move(key.text));
    } while (cursor != "0");
    return keys;
}

inline void delete_keys(redis::Connection& connection, const std::string& pattern) {
    for (const auto& key : matching_keys(connection, pattern)) connection.command({"DEL", key});
}

// The processing lists of `queue`'s consumers (one a consumer that holds or held tasks).
inline std::vector<std::string> processing_lists(redis::Connection& connection, const std::string& queue) {
    return matching_keys(connection, queue + ":processing:*");
}

// The tasks `queue`'s consumers hold: the lengths of its processing lists, summed.
inline long long processing_tasks(redis::Connection& connection, const std::string& queue) {
    long long tasks = 0;
    for (const auto& key : processing_lists(connection, queue)) tasks += connection.command({"LLEN", key}).integer;
    return tasks;
}

// A test with the local Redis: fails (never skips) when ROWPUMP_REDIS_URL is not set. queue() is a name
// no other test or process uses; every key under it is deleted in TearDown.
class RedisTest : public ::testing::Test {
protected:
    void SetUp() override {
        connect_local_redis(url_, connection_);
        if (HasFatalFailure()) return;
        options_ = RedisOptions::from_url(url_);
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        queue_ = std::string("rp_test:") + test->test_suite_name() + "." + test->name() + ":" +
                 std::to_string(::getpid());
        delete_queue();
    }
    void TearDown() override {
        if (connection_) delete_queue();
    }

    redis::Connection& redis() { return *connection_; }
    const std::string& url() const { return url_; }
    const std::string& queue() const { return queue_; }

    // The queue and its sub-keys (Q:delayed, Q:p:<name>); not Q* (that would match another pid's keys).
    void delete_queue() {
        connection_->command({"DEL", queue_});
        delete_keys(*connection_, queue_ + ":*");
    }

    std::string url_;
    RedisOptions options_;  // of url_
    std::string queue_;
    std::optional<redis::Connection> connection_;
};

// A port nobody listens on right now (the kernel's pick); good enough for a test-owned server.
inline unsigned free_tcp_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
}

// A private redis-server without persistence, run as a child process the test can kill and restart on
// the same port. The destructor kills it.
class PrivateRedisServer {
public:
    explicit PrivateRedisServer(std::vector<std::string> extra_arguments = {})
        : port_(free_tcp_port()), extra_(std::move(extra_arguments)) {
        start();
    }
    ~PrivateRedisServer() { kill(); }
    PrivateRedisServer(const PrivateRedisServer&) = delete;
    PrivateRedisServer& operator=(const PrivateRedisServer&) = delete;

    // Starts the server and waits until it answers PING.
    void start() {
        std::vector<std::string> arguments = {
            "redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--daemonize", "no", "--logfile", "/dev/null"};
        arguments.insert(arguments.end(), extra_.begin(), extra_.end());
        std::vector<char*> argv = c_string_list(arguments);
        // Its output goes to /dev/null: a server orphaned by a crashed test must not hold the test's pipes
        // open (ctest would wait for it forever).
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
        const int spawned = ::posix_spawnp(&pid_, "redis-server", &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        ASSERT_EQ(spawned, 0) << "cannot start redis-server (is it installed? see scripts/setup.sh)";
        wait_until_ready();
    }

    // SIGKILL: the server vanishes mid-whatever, with everything it held (no persistence).
    void kill() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = 0;
    }

    // SIGSTOP / SIGCONT: the server holds its connections open and answers nothing until thawed.
    void freeze() { ::kill(pid_, SIGSTOP); }
    void thaw() { ::kill(pid_, SIGCONT); }

    unsigned port() const { return port_; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_) + "/0"; }

private:
    void wait_until_ready() {
        RedisOptions options;
        options.port = port_;
        options.connect_timeout = std::chrono::milliseconds(200);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < deadline) {
            try {
                redis::Connection(options).command({"PING"});
                return;
            } catch (const QueueError& error) {
                // NOAUTH: up, but protected by a password this probe does not know.
                if (!error.is_transient()) return;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        FAIL() << "private redis-server on port " << port_ << " did not start within 10 s";
    }

    unsigned port_;
    std::vector<std::string> extra_;
    pid_t pid_ = 0;
};

}  // namespace rowpump::test

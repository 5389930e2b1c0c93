#pragma once
// A TCP relay on loopback between rowpump and a real server that can be frozen: it then keeps every
// socket open but moves no more bytes, and new connections are accepted but never answered. That is what a
// SIGSTOPped or hung server looks like from the client, without stopping the server other tests share.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fault/loopback_listener.hpp"

namespace rowpump::test {

class FreezingProxy {
public:
    FreezingProxy(std::string target_host, unsigned target_port)
        : target_host_(std::move(target_host)), target_port_(target_port) {
        listener_ = listen_on_loopback(64, port_);
        thread_ = std::thread([this] { relay(); });
    }
    ~FreezingProxy() {
        done_.store(true);
        thread_.join();
        for (const auto& [client, server] : pairs_) {
            ::close(client);
            if (server >= 0) ::close(server);
        }
        ::close(listener_);
    }
    FreezingProxy(const FreezingProxy&) = delete;
    FreezingProxy& operator=(const FreezingProxy&) = delete;

    unsigned port() const { return port_; }
    void freeze() { frozen_.store(true); }
    // Moves bytes again, as a SIGCONTed server would: what the clients sent meanwhile reaches the server,
    // and a client that went away meanwhile is closed on the server's side once its bytes are through.
    // Connections accepted while frozen stay unanswered.
    void thaw() { frozen_.store(false); }
    // While frozen: a client has sent bytes the server never got, so it waits for a reply that cannot come.
    bool client_waiting() const { return client_waiting_.load(); }

private:
    int connect_target() const {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(target_port_));
        ::inet_pton(AF_INET, target_host_.c_str(), &address.sin_addr);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            ::close(fd);
            return -1;
        }
        return fd;
    }

    // Copies what one side has ready to the other; false when either side closed.
    static bool pump(int from, int to) {
        char buffer[65536];
        const ssize_t got = ::read(from, buffer, sizeof buffer);
        if (got <= 0) return false;
        for (ssize_t sent = 0; sent < got;) {
            const ssize_t wrote = ::write(to, buffer + sent, static_cast<std::size_t>(got - sent));
            if (wrote <= 0) return false;
            sent += wrote;
        }
        return true;
    }

    bool client_bytes_pending() const {
        std::vector<pollfd> clients;
        for (const auto& [client, server] : pairs_)
            if (server >= 0) clients.push_back({client, POLLIN, 0});
        if (clients.empty() || ::poll(clients.data(), clients.size(), 0) <= 0) return false;
        for (const pollfd& client : clients)
            if (client.revents & POLLIN) return true;
        return false;
    }

    void relay() {
        while (!done_.load()) {
            std::vector<pollfd> watched{{listener_, POLLIN, 0}};
            std::vector<std::size_t> owners;  // the pair of each watched socket after the listener
            const bool frozen = frozen_.load();
            if (frozen) client_waiting_.store(client_bytes_pending());
            for (std::size_t pair = 0; !frozen && pair < pairs_.size(); ++pair) {
                if (pairs_[pair].second < 0) continue;
                watched.push_back({pairs_[pair].first, POLLIN, 0});
                watched.push_back({pairs_[pair].second, POLLIN, 0});
                owners.insert(owners.end(), {pair, pair});
            }
            if (::poll(watched.data(), watched.size(), 50) <= 0) continue;
            if (watched[0].revents & POLLIN) {
                const int client = ::accept(listener_, nullptr, nullptr);
                // Frozen: the connection is held open and never answered, like a hung server's backlog.
                if (client >= 0) pairs_.emplace_back(client, frozen ? -1 : connect_target());
            }
            for (std::size_t i = 1; i < watched.size(); ++i) {
                if (!(watched[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                auto& [client, server] = pairs_[owners[i - 1]];
                if (server < 0) continue;
                const bool from_client = i % 2 == 1;
                if (!pump(from_client ? client : server, from_client ? server : client)) {
                    ::close(server);
                    server = -1;
                    ::shutdown(client, SHUT_RDWR);
                }
            }
        }
    }

    std::string target_host_;
    unsigned target_port_;
    int listener_ = -1;
    unsigned port_ = 0;
    std::atomic<bool> frozen_{false};
    std::atomic<bool> done_{false};
    std::atomic<bool> client_waiting_{false};
    std::vector<std::pair<int, int>> pairs_;  // client, server (-1: accepted while frozen)
    std::thread thread_;
};

}  // namespace rowpump::test

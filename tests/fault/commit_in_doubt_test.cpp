// The MySQL job ledger's connection lost exactly during a page's COMMIT: the page may have been committed
// or not, and the ledger must find out from its checkpoint instead of taking the page for a lost lease (which
// made the worker leave its range as "taken over" and the run's summary undercount). The connection is cut
// by a relay on loopback (CommitCutter) that ends it at the first COMMIT it sees: after the server has
// answered it (committed, the reply lost) or before the server gets it (rolled back with the session).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "backend/registry/registry.hpp"
#include "checkpoint/job_store.hpp"
#include "fault/loopback_listener.hpp"
#include "integration/job_store_fixture.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/queue_contents.hpp"

namespace rowpump::test {
namespace {

enum class Cut { after_commit, before_commit };

// Relays every connection to the server unchanged until arm(); then the first COMMIT any client sends (a
// COM_QUERY packet, 0x03 then the text) ends that client's connection, on the side of the COMMIT `cut` says.
class CommitCutter {
public:
    explicit CommitCutter(unsigned target_port) : target_port_(target_port) {
        listener_ = listen_on_loopback(16, port_);
        accepter_ = std::thread([this] { accept_loop(); });
    }
    ~CommitCutter() {
        done_.store(true);
        accepter_.join();
        for (auto& relay : relays_) relay.join();
        ::close(listener_);
    }
    CommitCutter(const CommitCutter&) = delete;
    CommitCutter& operator=(const CommitCutter&) = delete;

    unsigned port() const { return port_; }
    void arm(Cut cut) {
        cut_ = cut;
        armed_.store(true);
    }
    bool fired() const { return fired_.load(); }

private:
    static sockaddr_in loopback(unsigned port) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return address;
    }

    void accept_loop() {
        while (!done_.load()) {
            pollfd watched{listener_, POLLIN, 0};
            if (::poll(&watched, 1, 50) <= 0) continue;
            const int client = ::accept(listener_, nullptr, nullptr);
            if (client < 0) continue;
            const int server = ::socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in address = loopback(target_port_);
            if (::connect(server, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
                ::close(server);
                ::close(client);
                continue;
            }
            relays_.emplace_back([this, client, server] { relay(client, server); });
        }
    }

    void relay(int client, int server) {
        char buffer[65536];
        while (!done_.load()) {
            pollfd watched[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
            if (::poll(watched, 2, 50) <= 0) continue;
            const bool from_client = watched[0].revents != 0;
            const ssize_t got = ::read(from_client ? client : server, buffer, sizeof buffer);
            if (got <= 0) break;
            const std::string_view bytes(buffer, static_cast<std::size_t>(got));
            if (from_client && bytes.find(std::string_view("\x03" "COMMIT")) != std::string_view::npos &&
                armed_.exchange(false)) {
                if (cut_ == Cut::after_commit) {
                    // The server's answer is read and dropped: it has committed, the client never learns it.
                    if (!send_all(server, bytes)) break;
                    pollfd reply{server, POLLIN, 0};
                    if (::poll(&reply, 1, 10'000) > 0) (void)::read(server, buffer, sizeof buffer);
                }
                fired_.store(true);
                break;
            }
            if (!send_all(from_client ? server : client, bytes)) break;
        }
        ::close(server);
        ::close(client);
    }

    static bool send_all(int fd, std::string_view bytes) {
        for (std::size_t sent = 0; sent < bytes.size();) {
            const ssize_t wrote = ::write(fd, bytes.data() + sent, bytes.size() - sent);
            if (wrote <= 0) return false;
            sent += static_cast<std::size_t>(wrote);
        }
        return true;
    }

    unsigned target_port_;
    int listener_ = -1;
    unsigned port_ = 0;
    Cut cut_ = Cut::after_commit;
    std::atomic<bool> armed_{false};
    std::atomic<bool> fired_{false};
    std::atomic<bool> done_{false};
    std::thread accepter_;
    std::vector<std::thread> relays_;  // one per connection, started by the accepter
};

KeyValue key(std::int64_t id) { return KeyValue{id}; }

std::vector<Message> page(int first, int count) {
    std::vector<Message> out;
    for (int id = first; id < first + count; ++id) out.push_back(Message{"{\"id\":" + std::to_string(id) + "}"});
    return out;
}

// ROWPUMP_MYSQL_URL with its host and port replaced by the relay's.
std::string url_through(unsigned port) {
    const std::string url = std::getenv("ROWPUMP_MYSQL_URL");
    const auto at = url.find('@');
    const auto path = url.find('/', at == std::string::npos ? url.find("://") + 3 : at);
    const auto authority = at == std::string::npos ? url.find("://") + 3 : at + 1;
    return url.substr(0, authority) + "127.0.0.1:" + std::to_string(port) + url.substr(path);
}

class CommitInDoubtTest : public Prepared<MySqlTest> {
protected:
    void prepare() override {
        ASSERT_EQ(options().host, "127.0.0.1") << "the relay listens on loopback for a server on loopback";
        cutter_.emplace(options().port);
        const std::string pid = std::to_string(::getpid());
        sink_.uri = url_through(cutter_->port());
        sink_.queue = "rp_test_doubt_q_" + pid;
        definition_ = id_keyed_job("rp_test_doubt_" + pid);
        drop_mysql_job(tables(), sink_.queue, definition_.job_id);
    }
    void TearDown() override {
        if (cutter_) drop_mysql_job(tables(), sink_.queue, definition_.job_id);
        MySqlTest::TearDown();
    }

    // One range below 1000, one ledger holding its lease; then a page whose COMMIT is cut, and one more.
    void write_across_a_cut_commit(Cut cut) {
        auto store = open_job_store(sink_, definition_);
        Partition part;
        part.range.hi = key(1000);
        store->create({part});
        auto ledger = store->open_ledger();
        auto range = ledger->lease();
        ASSERT_TRUE(range);

        cutter_->arm(cut);
        EXPECT_EQ(ledger->write(*range, page(1, 3), key(3)), PageWrite::written)
            << "the page's checkpoint was not looked at after the COMMIT in doubt";
        ASSERT_TRUE(cutter_->fired()) << "no COMMIT went through the relay";
        range->last_key = key(3);
        EXPECT_EQ(ledger->write(*range, page(4, 2), key(5)), PageWrite::written) << "the ledger lost its lease";
        EXPECT_TRUE(ledger->complete(*range));

        const JobState state = store->state();
        EXPECT_TRUE(state.finished());
        EXPECT_EQ(state.rows_written, 5u);
        const auto ids = payload_keys(queue_payloads(tables().connection(), sink_.queue), {"id"});
        EXPECT_EQ(multiset_difference(ids, {"1", "2", "3", "4", "5"}), "");
    }

    std::optional<CommitCutter> cutter_;
    SinkSpec sink_;
    JobDefinition definition_;
};

TEST_F(CommitInDoubtTest, APageCommittedJustBeforeTheConnectionWentIsWrittenOnceAndTheLeaseKept) {
    write_across_a_cut_commit(Cut::after_commit);
}

TEST_F(CommitInDoubtTest, APageRolledBackWithTheLostConnectionIsWrittenAgainOnceAndTheLeaseKept) {
    write_across_a_cut_commit(Cut::before_commit);
}

}  // namespace
}  // namespace rowpump::test

#pragma once
// The one place a copy asks whether it may read its next page, and write the next page it read. A thread
// of its own keeps the heartbeat on the primary, looks at the replicas, the server's load and the pause
// file every 100 ms, and opens or closes the gate; workers only read an atomic while it is open. It also
// holds the rate cap, the manual pause and --max-lag that the HTTP endpoint changes, and what /status and
// /metrics show. A pause closes the gate before POST /pause returns: from then on, only the pages whose
// writing had begun still land, one per worker at most.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rowpump/job.hpp"
#include "rowpump/throttle.hpp"
#include "throttle/rate_limiter.hpp"

namespace rowpump {

namespace http {
class Server;
}

namespace throttle {
class HeartbeatWriter;
class ReplicaProbe;
class LoadProbe;
class ThrottleQuery;
class ThrottleHttp;
}  // namespace throttle

enum class GateState { running, paused, throttled, stopping };
std::string to_string(GateState state);

// Where a range of this process's range board stands, which its summary does not say: a worker reads it
// now (else it waits), and it was split off another range for an idle worker (work stealing).
struct RangeActivity {
    bool reading = false;
    bool split_off = false;
};

// What a pass of the run shows: the progress and its ranges, as /status reports them.
struct RunView {
    JobProgress progress;
    std::vector<RangeSummary> ranges;
    // Beside `ranges`, one each, for the range board; empty with a job id (the store holds the leases).
    std::vector<RangeActivity> activity;
};

struct ReplicaView {
    std::string name;
    std::optional<double> lag_seconds;
    std::string problem;
    bool lagging = false;
};

struct GateView {
    GateState state = GateState::running;
    std::string reason;  // why it is not running; empty while it is
    std::vector<ReplicaView> replicas;
    std::map<std::string, double> held_seconds;  // by reason: replica_lag, load, pause_file, paused, throttle_query,
                                                 // throttle_http
    int workers_held = 0;  // workers waiting at the closed gate before they read their next page
    int pages_held = 0;  // pages read and waiting at the closed gate before they are written
    int pages_writing = 0;  // pages past the gate, being written now
    int pages_waiting_for_rate = 0;  // pages waiting for their turn under the rate cap
    double rate_limit = 0;
    double max_lag_seconds = 0;
    std::string max_load;        // "Threads_running=25" as given (--max-load, POST /max-load); empty: none
    std::size_t page_size = 0;   // set by POST /page-size; 0: the run's own (adaptive) size
    std::string stop_file;       // --stop-file; empty: none
    std::string throttle_query;  // --throttle-query; empty: none
    std::string throttle_http;   // --throttle-http; empty: none
    std::string stop_reason;     // why the run is stopping (POST /stop, the stop file, a critical load)
    std::optional<RunView> run;
};

class ThrottleGate {
public:
    // Connects to the replicas and the primary, makes the first look (so a pause file or a lagging replica
    // holds the very first page), and starts the HTTP endpoint: everything a bad spec can fail on fails
    // here, as a UsageError, before a row is read.
    // `now`: the clock of the held seconds and the rate cap (a test's own steps it).
    ThrottleGate(const ThrottleSpec& spec, const MySqlOptions& primary, double rate,
                 SteadyNow now = &std::chrono::steady_clock::now);
    ~ThrottleGate();
    ThrottleGate(const ThrottleGate&) = delete;
    ThrottleGate& operator=(const ThrottleGate&) = delete;

    // Before a worker reads its next page: returns at once while the gate is open, else when it opens or
    // `stop` is set, calling `keep_alive` about once a second meanwhile (the worker's idle connections).
    template <class KeepAlive>
    void before_read(const std::atomic<bool>& stop, KeepAlive&& keep_alive) {
        if (!open_.load()) wait_until_open(workers_held_, stop, keep_alive);
    }

    // While it lives, a page is being written: counted in /status (pages_writing).
    class Writing {
    public:
        explicit Writing(std::atomic<int>& writing) : writing_(&writing) {}  // adopts one count
        Writing(Writing&& other) noexcept : writing_(std::exchange(other.writing_, nullptr)) {}
        Writing& operator=(Writing&&) = delete;
        ~Writing() {
            if (writing_) writing_->fetch_sub(1);
        }

    private:
        std::atomic<int>* writing_;
    };

    // Before a worker writes a page it read: as before_read. The pages read before the gate closed wait
    // here, so that a pause holds them too.
    template <class KeepAlive>
    [[nodiscard]] Writing before_write(const std::atomic<bool>& stop, KeepAlive&& keep_alive) {
        // Counted as writing before the gate is looked at: once a pause has closed it, every page that
        // will still land is in pages_writing.
        pages_writing_.fetch_add(1);
        while (!open_.load() && !stop.load()) {
            pages_writing_.fetch_sub(1);
            wait_until_open(pages_held_, stop, keep_alive);
            pages_writing_.fetch_add(1);
        }
        return Writing(pages_writing_);
    }

    RateLimiter& rate() { return rate_; }

    // A pass of the run, while the returned handle lives: a critical load sets `halt` and calls `wake`
    // (idle workers wait elsewhere), and /status shows `view`.
    class Pass {
    public:
        explicit Pass(ThrottleGate& gate) : gate_(&gate) {}
        ~Pass() { gate_->detach(); }
        Pass(const Pass&) = delete;
        Pass& operator=(const Pass&) = delete;

    private:
        ThrottleGate* gate_;
    };
    [[nodiscard]] std::unique_ptr<Pass> attach(std::atomic<bool>& halt, std::function<void()> wake,
                                               std::function<RunView()> view);

    void pause();
    void resume();
    // A clean stop, as SIGTERM: no page is read after it, the pages read are written, the run exits 3
    // (interrupted; resumable with a job id). POST /stop and the stop file.
    void stop(const std::string& reason);
    void set_max_lag(double seconds);
    void set_rate(double rows_per_second) { rate_.set_rate(rows_per_second); }
    // New --max-load limits ("Threads_running=25,..."; empty: none), checked against the server as the flag
    // is. Throws UsageError (config::OptionError) for a bad one, and then keeps the old limits.
    void set_max_load(const std::string& limits);
    // Every page after this has `rows` rows (adaptive sizing no longer moves it); the readers read it
    // through page_size_override().
    void set_page_size(std::size_t rows) { page_size_.store(rows); }
    const std::atomic<std::size_t>* page_size_override() const { return &page_size_; }

    GateView view();
    // For progress lines: "throttled: replica 127.0.0.1:3307 lag 3.2 s > 1.5 s"; empty while running.
    std::string describe() const;

private:
    // What the last look saw, beside the manual pause: decide() turns it into the gate's state.
    struct Readings {
        std::string lag_reason;  // empty: no replica lags
        std::optional<std::string> load_over;
        bool pause_file = false;
        std::optional<std::string> throttle_query;  // why the throttle query holds reading
        std::optional<std::string> throttle_http;
        bool stop_file = false;
    };

    void wait_until_open(std::atomic<int>& waiting, const std::atomic<bool>& stop,
                         const std::function<void()>& keep_alive);
    void detach();
    void watch();
    void look();  // one look at everything; mutex_ not held
    void decide(std::chrono::steady_clock::time_point now);  // mutex_ held
    void note_critical(const std::optional<std::string>& over, std::chrono::steady_clock::time_point now);

    ThrottleSpec spec_;
    SteadyNow now_;
    RateLimiter rate_;
    std::atomic<bool> open_{true};
    std::atomic<int> workers_held_{0};
    std::atomic<int> pages_held_{0};
    std::atomic<int> pages_writing_{0};
    std::atomic<double> max_lag_;
    std::atomic<bool> paused_{false};
    std::atomic<std::size_t> page_size_{0};
    MySqlOptions primary_;

    std::unique_ptr<throttle::HeartbeatWriter> heartbeat_;
    std::vector<std::unique_ptr<throttle::ReplicaProbe>> replicas_;
    std::unique_ptr<throttle::LoadProbe> load_;
    std::unique_ptr<throttle::ThrottleQuery> throttle_query_;
    std::unique_ptr<throttle::ThrottleHttp> throttle_http_;

    std::mutex look_mutex_;  // one look at a time: the probes' connections are not shared
    std::mutex view_mutex_;  // held while run_view_ runs, so that a pass cannot end under it
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    GateState state_ = GateState::running;  // guarded by mutex_, as everything below
    std::string reason_;
    Readings readings_;
    std::vector<std::string> holding_;  // what held the copy since last_look_
    bool look_now_ = false;  // the watcher looks at once (a new --max-lag)
    std::vector<ReplicaView> replica_views_;
    std::map<std::string, double> held_seconds_;
    std::chrono::steady_clock::time_point last_look_{};
    std::optional<std::chrono::steady_clock::time_point> critical_since_;
    std::string critical_stop_;  // non-empty once a critical load stopped the run
    std::string stop_reason_;    // non-empty once POST /stop or the stop file stopped it
    std::string max_load_text_;  // the --max-load limits as given
    std::atomic<bool>* halt_ = nullptr;
    std::function<void()> wake_;
    std::function<RunView()> run_view_;
    bool done_ = false;

    std::thread watcher_;
    std::unique_ptr<http::Server> http_;  // last: its handlers use everything above
};

}  // namespace rowpump

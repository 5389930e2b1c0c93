#include "throttle/throttle_gate.hpp"

#include <cstdio>
#include <filesystem>

#include "config/option_error.hpp"
#include "config/option_schema.hpp"
#include "http/http_server.hpp"
#include "log.hpp"
#include "metrics/interval_line.hpp"
#include "throttle/control_routes.hpp"
#include "throttle/external_checks.hpp"
#include "throttle/heartbeat.hpp"
#include "throttle/replica_lag.hpp"
#include "throttle/server_load.hpp"

namespace rowpump {

namespace {

using clock = std::chrono::steady_clock;

// The heartbeat's interval, and with it how often everything is looked at: gh-ost's default heartbeat.
constexpr auto look_interval = std::chrono::milliseconds(100);
// How often a held worker pings its connections: far below any wait_timeout, and a ping costs nothing.
constexpr auto keep_alive_interval = std::chrono::seconds(1);
// A critical load must still be there this long after it was first seen: one spike does not stop a run.
constexpr auto critical_recheck = std::chrono::seconds(1);

// "Threads_running=25,Threads_connected=400", as the limits were given.
std::string limits_text(const std::vector<LoadLimit>& limits) {
    std::string text;
    for (const auto& limit : limits) {
        char number[32];
        std::snprintf(number, sizeof number, "%g", limit.limit);
        text += (text.empty() ? "" : ",") + limit.variable + "=" + number;
    }
    return text;
}

}  // namespace

std::string to_string(GateState state) {
    switch (state) {
        case GateState::running: return "running";
        case GateState::paused: return "paused";
        case GateState::throttled: return "throttled";
        case GateState::stopping: return "stopping";
    }
    return "running";
}

ThrottleGate::ThrottleGate(const ThrottleSpec& spec, const MySqlOptions& primary, double rate, SteadyNow now)
    : spec_(spec), now_(std::move(now)), rate_(rate, now_),
      max_lag_(std::chrono::duration<double>(spec.max_lag).count()), primary_(primary),
      max_load_text_(limits_text(spec.max_load)) {
    if (!spec_.any()) return;
    if (spec_.max_lag.count() <= 0)
        throw config::OptionError({config::OptionId::max_lag, " must be more than 0 seconds"});
    if (!spec_.replicas.empty() && spec_.lag_query.empty())
        heartbeat_ = std::make_unique<throttle::HeartbeatWriter>(primary);
    for (MySqlOptions replica : spec_.replicas) {
        // Replicas usually share the primary's accounts: a URL without a password (and none in the
        // environment) uses the source's, so that no password need be on the command line.
        if (replica.password.empty() && replica.user == primary.user) replica.password = primary.password;
        replicas_.push_back(std::make_unique<throttle::ReplicaProbe>(replica, spec_.lag_query));
    }
    load_ = std::make_unique<throttle::LoadProbe>(primary, spec_.max_load, spec_.critical_load);
    if (!spec_.throttle_query.empty())
        throttle_query_ = std::make_unique<throttle::ThrottleQuery>(primary, spec_.throttle_query);
    if (!spec_.throttle_http.empty()) throttle_http_ = std::make_unique<throttle::ThrottleHttp>(spec_.throttle_http);
    look();
    // The endpoint before the watcher: a bad --http address throws here, and no thread runs yet to be
    // destroyed joinable (which aborted the process).
    if (!spec_.http.empty())
        http_ = std::make_unique<http::Server>(
            spec_.http, [this](const http::Request& request) { return throttle::handle_control(*this, request); },
            "status page (/), status and control (/status, /metrics, POST /pause, /resume, /stop, /rate, /page-size, /max-load, "
            "/max-lag)");
    watcher_ = std::thread([this] { watch(); });
}

ThrottleGate::~ThrottleGate() {
    http_.reset();
    {
        std::lock_guard lock(mutex_);
        done_ = true;
    }
    changed_.notify_all();
    if (watcher_.joinable()) watcher_.join();
}

void ThrottleGate::wait_until_open(std::atomic<int>& waiting, const std::atomic<bool>& stop,
                                   const std::function<void()>& keep_alive) {
    // Pings keep real time, whatever now_ says: they are for the servers' idle timeouts.
    using real = std::chrono::steady_clock;
    auto next_ping = real::now() + keep_alive_interval;
    waiting.fetch_add(1);
    std::unique_lock lock(mutex_);
    // The stop flag is set without the mutex (a signal, another worker's failure): look at it often.
    while (!open_.load() && !stop.load()) {
        changed_.wait_for(lock, look_interval);
        if (real::now() < next_ping) continue;
        lock.unlock();
        keep_alive();
        next_ping = real::now() + keep_alive_interval;
        lock.lock();
    }
    waiting.fetch_sub(1);
}

std::unique_ptr<ThrottleGate::Pass> ThrottleGate::attach(std::atomic<bool>& halt, std::function<void()> wake,
                                                         std::function<RunView()> view) {
    std::lock_guard view_lock(view_mutex_);
    std::lock_guard lock(mutex_);
    halt_ = &halt;
    wake_ = std::move(wake);
    run_view_ = std::move(view);
    // Stopped before this pass began (POST /stop, the stop file): it starts stopped.
    if (!stop_reason_.empty()) halt.store(true);
    return std::make_unique<Pass>(*this);
}

void ThrottleGate::detach() {
    std::lock_guard view_lock(view_mutex_);
    std::lock_guard lock(mutex_);
    halt_ = nullptr;
    wake_ = nullptr;
    run_view_ = nullptr;
}

void ThrottleGate::pause() {
    // Decided here, on what the last look saw: the gate is closed when this returns.
    paused_.store(true);
    std::lock_guard lock(mutex_);
    decide(now_());
}

void ThrottleGate::resume() {
    paused_.store(false);
    std::lock_guard lock(mutex_);
    decide(now_());
}

void ThrottleGate::stop(const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (!stop_reason_.empty() || !critical_stop_.empty()) return;
    stop_reason_ = reason;
    log().warn("{}: stopping cleanly (the pages read are written); with --job-id, run the same command again to resume",
               reason);
    if (halt_) {
        halt_->store(true);
        if (wake_) wake_();
    }
    decide(now_());
}

void ThrottleGate::set_max_load(const std::string& limits) {
    std::vector<LoadLimit> parsed =
        limits.empty() ? std::vector<LoadLimit>{} : parse_load_limits(limits, config::option(config::OptionId::max_load).cli);
    // A new probe checks the names against the server, as the flag's did; the old one stays on failure.
    auto probe = std::make_unique<throttle::LoadProbe>(primary_, parsed, spec_.critical_load);
    {
        std::lock_guard look_lock(look_mutex_);
        load_ = std::move(probe);
    }
    {
        std::lock_guard lock(mutex_);
        max_load_text_ = limits_text(parsed);
        look_now_ = true;
    }
    log().info("max load now {}", parsed.empty() ? "none" : limits_text(parsed));
    changed_.notify_all();
}

void ThrottleGate::set_max_lag(double seconds) {
    max_lag_.store(seconds);
    // The replicas' lag is compared with it in a look: the watcher makes one at once.
    {
        std::lock_guard lock(mutex_);
        look_now_ = true;
    }
    changed_.notify_all();
}

void ThrottleGate::watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
        look_now_ = false;
        lock.unlock();
        if (heartbeat_) heartbeat_->beat();
        look();
        lock.lock();
        changed_.wait_for(lock, look_interval, [this] { return done_ || look_now_; });
    }
}

void ThrottleGate::look() {
    // The looks run without mutex_: a slow replica must not hold up /status or a worker's wait.
    std::lock_guard look_lock(look_mutex_);
    const double max_lag = max_lag_.load();
    std::vector<ReplicaView> replicas;
    Readings readings;
    for (auto& probe : replicas_) {
        const throttle::LagReading reading = probe->read(heartbeat_ ? heartbeat_->database() : std::string());
        ReplicaView view{probe->name(), reading.seconds, reading.problem, reading.lagging(max_lag)};
        if (view.lagging && readings.lag_reason.empty())
            readings.lag_reason =
                "replica " + view.name + " " +
                (!reading.problem.empty() ? reading.problem
                 : reading.seconds        ? "lag " + metrics::seconds_text(*reading.seconds) + " > " + metrics::seconds_text(max_lag)
                                          : "lag unknown");
        replicas.push_back(std::move(view));
    }
    throttle::LoadReading load;
    throttle::LoadReading critical;
    if (load_) load_->read(load, critical);
    readings.load_over = load.over;
    std::error_code error;
    readings.pause_file = !spec_.pause_file.empty() && std::filesystem::exists(spec_.pause_file, error);
    readings.stop_file = !spec_.stop_file.empty() && std::filesystem::exists(spec_.stop_file, error);
    // Asked at most once a second each (external_checks.hpp), on the real clock: they are other servers.
    const auto real_now = std::chrono::steady_clock::now();
    if (throttle_query_) readings.throttle_query = throttle_query_->check(real_now);
    if (throttle_http_) readings.throttle_http = throttle_http_->check(real_now);

    if (readings.stop_file) stop("stop file " + spec_.stop_file + " exists");
    std::lock_guard lock(mutex_);
    const auto now = now_();
    note_critical(critical.over, now);
    readings_ = std::move(readings);
    replica_views_ = std::move(replicas);
    decide(now);
}

void ThrottleGate::decide(clock::time_point now) {
    GateState state = GateState::running;
    std::string reason;
    std::vector<std::string> holding;
    if (paused_.load()) holding.push_back("paused");
    if (readings_.pause_file) holding.push_back("pause_file");
    if (!readings_.lag_reason.empty()) holding.push_back("replica_lag");
    if (readings_.load_over) holding.push_back("load");
    if (readings_.throttle_query) holding.push_back("throttle_query");
    if (readings_.throttle_http) holding.push_back("throttle_http");
    if (!critical_stop_.empty() || !stop_reason_.empty() || (halt_ && halt_->load())) {
        state = GateState::stopping;
        reason = !critical_stop_.empty() ? critical_stop_ : !stop_reason_.empty() ? stop_reason_ : "stop requested";
        holding.clear();
    } else if (paused_.load()) {
        state = GateState::paused;
        reason = "paused over HTTP (POST /resume goes on)";
    } else if (readings_.pause_file) {
        state = GateState::paused;
        reason = "pause file " + spec_.pause_file + " exists";
    } else if (!readings_.lag_reason.empty()) {
        state = GateState::throttled;
        reason = readings_.lag_reason;
    } else if (readings_.load_over) {
        state = GateState::throttled;
        reason = "load " + *readings_.load_over;
    } else if (readings_.throttle_query) {
        state = GateState::throttled;
        reason = *readings_.throttle_query;
    } else if (readings_.throttle_http) {
        state = GateState::throttled;
        reason = "throttler " + *readings_.throttle_http;
    }
    // The time since the last decision goes to what held the copy then.
    if (last_look_ != clock::time_point{} && now > last_look_) {
        const double elapsed = std::chrono::duration<double>(now - last_look_).count();
        for (const auto& name : holding_) held_seconds_[name] += elapsed;
    }
    if (last_look_ == clock::time_point{} || now > last_look_) last_look_ = now;
    holding_ = std::move(holding);
    if (state != state_ || reason != reason_) {
        if (state == GateState::running)
            log().info("reading goes on ({} before)", reason_);
        else if (state != GateState::stopping)
            log().info("reading pauses between pages: {}", reason);
    }
    state_ = state;
    reason_ = reason;
    const bool open = state == GateState::running || state == GateState::stopping;
    if (open != open_.load()) {
        open_.store(open);
        changed_.notify_all();
    }
}

void ThrottleGate::note_critical(const std::optional<std::string>& over, clock::time_point now) {
    if (!over) {
        critical_since_.reset();
        return;
    }
    if (!critical_stop_.empty() || !halt_) return;
    if (!critical_since_) {
        critical_since_ = now;
        log().warn("critical load {}: looking again in {} s", *over, critical_recheck.count());
        return;
    }
    if (now - *critical_since_ < critical_recheck) return;
    critical_stop_ = "critical load " + *over;
    log().error("{} (still, {} s after it was first seen): stopping; with --job-id, run the same command again to "
                "resume",
                critical_stop_, critical_recheck.count());
    halt_->store(true);
    if (wake_) wake_();
}

GateView ThrottleGate::view() {
    std::lock_guard view_lock(view_mutex_);
    GateView view;
    {
        std::lock_guard lock(mutex_);
        view.state = state_;
        view.reason = reason_;
        view.replicas = replica_views_;
        view.held_seconds = held_seconds_;
        view.max_load = max_load_text_;
        view.stop_reason = !critical_stop_.empty() ? critical_stop_ : stop_reason_;
    }
    view.page_size = page_size_.load();
    view.stop_file = spec_.stop_file;
    view.throttle_query = spec_.throttle_query;
    view.throttle_http = spec_.throttle_http;
    view.workers_held = workers_held_.load();
    view.pages_held = pages_held_.load();
    view.pages_writing = pages_writing_.load();
    view.pages_waiting_for_rate = rate_.waiting();
    view.rate_limit = rate_.rate();
    view.max_lag_seconds = max_lag_.load();
    if (run_view_) view.run = run_view_();
    return view;
}

std::string ThrottleGate::describe() const {
    std::lock_guard lock(mutex_);
    if (state_ == GateState::running) return "";
    return to_string(state_) + ": " + reason_;
}

}  // namespace rowpump

#include "log.hpp"

#include <mutex>

#include <spdlog/sinks/base_sink.h>

namespace rowpump {

namespace {

LogLevel from_spdlog(spdlog::level::level_enum level) {
    switch (level) {
        case spdlog::level::trace:
        case spdlog::level::debug: return LogLevel::debug;
        case spdlog::level::info: return LogLevel::info;
        case spdlog::level::warn: return LogLevel::warning;
        case spdlog::level::err:
        case spdlog::level::critical: return LogLevel::error;
        default: return LogLevel::off;
    }
}

spdlog::level::level_enum to_spdlog(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return spdlog::level::debug;
        case LogLevel::info: return spdlog::level::info;
        case LogLevel::warning: return spdlog::level::warn;
        case LogLevel::error: return spdlog::level::err;
        case LogLevel::off: break;
    }
    return spdlog::level::off;
}

// base_sink holds its mutex while it passes a message on, so handler calls never overlap and a handler
// is never replaced during one.
class HandlerSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    void set_handler(LogHandler handler) {
        const std::lock_guard lock(mutex_);
        handler_ = std::move(handler);
    }

protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
        if (handler_)
            handler_(from_spdlog(message.level), std::string_view(message.payload.data(), message.payload.size()));
    }
    void flush_() override {}

private:
    LogHandler handler_;
};

const std::shared_ptr<HandlerSink>& handler_sink() {
    static const auto sink = std::make_shared<HandlerSink>();
    return sink;
}

}  // namespace

spdlog::logger& log() {
    static spdlog::logger logger("rowpump", handler_sink());
    return logger;
}

void set_log_handler(LogHandler handler) { handler_sink()->set_handler(std::move(handler)); }
void set_log_level(LogLevel level) { log().set_level(to_spdlog(level)); }
LogLevel log_level() { return from_spdlog(log().level()); }

std::string_view to_string(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return "debug";
        case LogLevel::info: return "info";
        case LogLevel::warning: return "warning";
        case LogLevel::error: return "error";
        case LogLevel::off: break;
    }
    return "off";
}

}  // namespace rowpump

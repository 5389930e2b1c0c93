#pragma once
// The HTTP endpoint of a run (--http): GET / (the status page, http/web_page.hpp), GET /status (JSON),
// GET /metrics (Prometheus text), and POST /pause, /resume, /stop, /rate?value=N, /max-lag?value=S,
// /max-load?value=..., /page-size?value=N. Nothing it shows holds a password.
#include "http/http_server.hpp"

namespace rowpump {
class ThrottleGate;
}

namespace rowpump::throttle {

http::Response handle_control(ThrottleGate& gate, const http::Request& request);

}  // namespace rowpump::throttle

#pragma once
// The HTTP endpoint of a run (--http): GET /status (JSON), GET /metrics (Prometheus text), and POST
// /pause, /resume, /rate?value=N, /max-lag?value=S. Nothing it shows holds a password.
#include "http/http_server.hpp"

namespace rowpump {
class ThrottleGate;
}

namespace rowpump::throttle {

http::Response handle_control(ThrottleGate& gate, const http::Request& request);

}  // namespace rowpump::throttle

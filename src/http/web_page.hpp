#pragma once
// The status page of --http (docs/web-page.md): GET / is one HTML page that polls /status once a second and
// shows a backfill (ranges, rows/s, ETA, throttle, controls) or a consumer (depths, throughput, dead tasks),
// whichever /status describes. Its script and style are files of their own (/app.js, /style.css), because
// the Content-Security-Policy every answer carries (http_server.cpp) lets no inline script run. The files
// live in src/http/web/ and are built into the binary (cmake/web_page.cmake): no file, CDN or network.
#include <optional>

#include "http/http_server.hpp"

namespace rowpump::http {

// GET /, /index.html, /app.js, /style.css; nullopt for any other request.
std::optional<Response> web_page(const Request& request);

}  // namespace rowpump::http

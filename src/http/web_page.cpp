#include "http/web_page.hpp"

#include "web_page_assets.inc"

namespace rowpump::http {

std::optional<Response> web_page(const Request& request) {
    if (request.method != "GET") return std::nullopt;
    if (request.path == "/" || request.path == "/index.html") return Response{200, "text/html; charset=utf-8", web_index_html};
    if (request.path == "/app.js") return Response{200, "text/javascript; charset=utf-8", web_app_js};
    if (request.path == "/style.css") return Response{200, "text/css; charset=utf-8", web_style_css};
    return std::nullopt;
}

}  // namespace rowpump::http

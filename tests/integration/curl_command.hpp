#pragma once
// The curl command a user types at the HTTP endpoint (`curl -s -X POST URL`, `-H HEADER` as needed, no
// body), run through the shell, and what it printed: the body and the status code.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace rowpump::test {

struct CurlAnswer {
    int status = 0;
    std::string body;
};

// `curl -s [-X METHOD] [-H HEADER]... URL`; the status from `-w ' %{http_code}'`. No proxy is asked.
inline CurlAnswer curl(const std::string& method, const std::string& url, const std::vector<std::string>& headers = {}) {
    std::string command = "curl -s --noproxy '*' --max-time 10";
    if (method != "GET") command += " -X " + method;
    for (const std::string& header : headers) command += " -H '" + header + "'";
    command += " '" + url + "' -w ' %{http_code}'";
    std::string output;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[4096];
        while (const std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, got);
        ::pclose(pipe);
    }
    CurlAnswer answer;
    const auto space = output.rfind(' ');
    if (space == std::string::npos) return answer;
    answer.status = std::atoi(output.c_str() + space + 1);
    answer.body = output.substr(0, space);
    return answer;
}

// `curl -s -X POST 'http://127.0.0.1:PORT/TARGET'`.
inline CurlAnswer curl_post(int port, const std::string& target) {
    return curl("POST", "http://127.0.0.1:" + std::to_string(port) + target);
}

}  // namespace rowpump::test

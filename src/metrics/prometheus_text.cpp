#include "metrics/prometheus_text.hpp"

#include <cmath>
#include <cstdio>

namespace rowpump::metrics {

namespace {

// HELP text escapes backslash and newline; label values also the double quote.
std::string escaped(const std::string& text, bool quote) {
    std::string out;
    for (const char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (quote && c == '"') out += "\\\"";
        else out += c;
    }
    return out;
}

std::string number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

}  // namespace

void PrometheusText::family(const std::string& name, const std::string& type, const std::string& help) {
    text_ += "# HELP " + name + " " + escaped(help, false) + "\n# TYPE " + name + " " + type + "\n";
}

void PrometheusText::sample(const std::string& name, double value, const Labels& labels) {
    text_ += name;
    if (!labels.empty()) {
        text_ += '{';
        for (std::size_t i = 0; i < labels.size(); ++i)
            text_ += (i ? "," : "") + labels[i].first + "=\"" + escaped(labels[i].second, true) + "\"";
        text_ += '}';
    }
    text_ += " " + number(value) + "\n";
}

}  // namespace rowpump::metrics

#include "job/overrides.hpp"

#include <charconv>
#include <optional>

#include "job/override_schema.hpp"
#include "job/yaml_document.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

namespace rowpump::job {

namespace {

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto dot = path.find('.', start);
        parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) return parts;
        start = dot + 1;
    }
}

std::optional<std::size_t> list_index(const std::string& part) {
    std::size_t index = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), index);
    if (error != std::errc() || end != part.data() + part.size()) return std::nullopt;
    return index;
}

class OverrideApplier {
public:
    OverrideApplier(std::string text, std::string file) : text_(std::move(text)), file_(std::move(file)) {
        shown_ = "--set " + redact_url(text_);
    }

    // Returns the dotted path set.
    std::string apply(YAML::Node& root) const {
        const auto equals = text_.find('=');
        if (equals == std::string::npos || equals == 0)
            fail("expected --set path=value, e.g. --set source.page_size=500");
        const std::string path = text_.substr(0, equals);
        const auto parts = split_path(path);
        for (const auto& part : parts)
            if (part.empty()) fail("empty name in path '" + path + "': expected names joined by dots, e.g. source.table");
        const OverridePath known = check_override_path(path);
        if (!known.refusal.empty()) fail(known.refusal);

        YAML::Node node;
        node.reset(root);
        std::string walked;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const bool last = i + 1 == parts.size();
            YAML::Node next;
            if (node.IsSequence()) {
                const auto index = list_index(parts[i]);
                if (!index || *index >= node.size())
                    fail("'" + walked + "' is a list of " + std::to_string(node.size()) +
                         " items: expected an index below " + std::to_string(node.size()) + ", got '" + parts[i] + "'");
                next.reset(node[*index]);
            } else if (node.IsMap() || node.IsNull()) {
                next.reset(node[parts[i]]);
            } else {
                fail("'" + walked + "' holds a single value, not a map: cannot set '" + parts[i] + "' inside it");
            }
            walked = child_path(walked, parts[i]);
            if (last) {
                const std::string given = text_.substr(equals + 1);
                next = known.literal && !given.empty() ? YAML::Node(given) : value(given);
            } else if (!next.IsDefined() || next.IsNull()) {
                next = YAML::Node(YAML::NodeType::Map);
            }
            node.reset(next);
        }
        return walked;
    }

    const std::string& shown() const { return shown_; }

private:
    YAML::Node value(const std::string& text) const {
        if (text.empty()) return YAML::Node(YAML::NodeType::Null);
        if (text.front() != '[' && text.front() != '{') return YAML::Node(text);
        try {
            return parse_yaml(text, "value");
        } catch (const ConfigError& error) {
            fail(std::string("the value is not a valid YAML list or map: ") + error.what());
        }
    }

    [[noreturn]] void fail(const std::string& what) const { throw ConfigError(file_, 0, 0, shown_ + ": " + what); }

    std::string text_;
    std::string file_;
    std::string shown_;
};

}  // namespace

OverriddenPaths apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides, const std::string& file) {
    OverriddenPaths paths;
    for (const auto& text : overrides) {
        OverrideApplier applier(text, file);
        paths[applier.apply(root)] = applier.shown();
    }
    return paths;
}

}  // namespace rowpump::job

#include "job/yaml_document.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "rowpump/error.hpp"

namespace rowpump::job {

namespace {

[[noreturn]] void fail_at(const std::string& file, const YAML::Mark& mark, const std::string& what) {
    if (mark.is_null()) throw ConfigError(file, 0, 0, what);
    throw ConfigError(file, mark.line + 1, mark.column + 1, what);
}

std::string place(const std::string& path) { return path.empty() ? "at the top level" : "in " + path; }

void reject_duplicate_keys(const YAML::Node& node, const std::string& path, const std::string& file) {
    if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i)
            reject_duplicate_keys(node[i], child_path(path, std::to_string(i)), file);
        return;
    }
    if (!node.IsMap()) return;
    std::map<std::string, YAML::Mark> seen;
    for (const auto& pair : node) {
        if (!pair.first.IsScalar()) fail_at(file, pair.first.Mark(), "a key " + place(path) + " is not a name");
        const std::string& key = pair.first.Scalar();
        const auto [first, inserted] = seen.emplace(key, pair.first.Mark());
        if (!inserted)
            fail_at(file, pair.first.Mark(),
                    "duplicate key '" + key + "' " + place(path) + " (first given at line " +
                        std::to_string(first->second.line + 1) + "): keep only one");
        reject_duplicate_keys(pair.second, child_path(path, key), file);
    }
}

}  // namespace

std::string child_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::ParserException& error) {
        fail_at(file, error.mark, "YAML syntax error: " + error.msg);
    }
    reject_duplicate_keys(root, "", file);
    return root;
}

YAML::Node read_yaml_file(const std::string& path) {
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw ConfigError(path, 0, 0, "is a directory: expected a YAML job file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(path, 0, 0, std::string("cannot read the job file: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw ConfigError(path, 0, 0, std::string("cannot read the job file: ") + std::strerror(errno));
    return parse_yaml(text.str(), path);
}

}  // namespace rowpump::job

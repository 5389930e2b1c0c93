#include "job/yaml_document.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

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

// The line (0-based) of the "---" that opens the document yaml-cpp placed at `mark`: the last such line
// at or before it; the mark itself when the document began after "..." instead.
YAML::Mark document_start(const std::string& text, const YAML::Mark& mark) {
    YAML::Mark start = mark;
    std::istringstream lines(text);
    int line = 0;
    for (std::string content; line <= mark.line && std::getline(lines, content); ++line) {
        const bool separator =
            content.starts_with("---") && (content.size() == 3 || std::isspace(static_cast<unsigned char>(content[3])));
        if (separator) {
            start.line = line;
            start.column = 0;
        }
    }
    return start;
}

}  // namespace

std::string child_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
    } catch (const YAML::ParserException& error) {
        fail_at(file, error.mark, "YAML syntax error: " + error.msg);
    }
    // yaml-cpp's Load() would read the first document and drop the rest without a word.
    if (documents.size() > 1)
        fail_at(file, document_start(text, documents[1].Mark()),
                "a second YAML document starts here: a job file holds one job; remove the '---' and what follows, "
                "or put that job in a file of its own");
    const YAML::Node root = documents.empty() ? YAML::Node() : documents.front();
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

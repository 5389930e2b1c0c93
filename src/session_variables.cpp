// --set-vars: session variables the user adds to every source connection. SET cannot take a bound value
// through the streaming driver's text protocol, and a quoted number is refused by numeric variables
// ("Incorrect argument type"), so values are checked strictly here instead: a number or DEFAULT is sent
// as it is, a word of a few safe characters as a quoted string. Nothing that could end the literal or
// the statement can get through.
#include <cctype>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

namespace rowpump {

namespace {

bool is_identifier(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
    for (unsigned char c : name)
        if (!std::isalnum(c) && c != '_') return false;
    return true;
}

bool is_safe_word(const std::string& value) {
    for (unsigned char c : value)
        if (!std::isalnum(c) && c != '_' && c != '.' && c != ':' && c != '+' && c != '-' && c != '/') return false;
    return !value.empty();
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

void check_session_variable(const std::string& name, const std::string& value, const std::string& where) {
    if (!is_identifier(name))
        throw UsageError("invalid session variable name '" + name + "' in " + where +
                         ": expected a name of letters, digits and _ such as innodb_lock_wait_timeout");
    std::string lower;
    for (unsigned char c : name) lower += static_cast<char>(std::tolower(c));
    if (lower == "time_zone")
        throw UsageError("time_zone cannot be set in " + where +
                         ": rowpump reads every session in UTC (+00:00) so that TIMESTAMP values are written "
                         "with a Z; remove it");
    if (lower == "character_set_client" || lower == "character_set_connection" ||
        lower == "character_set_results" || lower == "collation_connection")
        throw UsageError(name + " cannot be set in " + where +
                         ": rowpump's sessions speak utf8mb4, which the escaping of the values it sends and the "
                         "text of its payloads rely on; remove it");
    if (lower == "autocommit")
        throw UsageError("autocommit cannot be set in " + where +
                         ": rowpump reads each page in a statement of its own, so that no transaction stays open "
                         "on the source to hold back purge, and its writes commit as they go; remove it");
    if (!is_safe_word(value))
        throw UsageError("invalid value '" + value + "' for session variable " + name + " in " + where +
                         ": expected a number (30, 0.5), DEFAULT or a word of letters, digits and _ . : + - / "
                         "(no quotes, spaces or commas)");
}

std::vector<std::pair<std::string, std::string>> parse_session_variables(const std::string& text,
                                                                         const std::string& where) {
    std::vector<std::pair<std::string, std::string>> variables;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        const std::string item = trimmed(text.substr(start, end - start));
        start = end + 1;
        if (item.empty()) {
            if (end == text.size() && !variables.empty()) break;  // a trailing comma
            throw UsageError("empty item in " + where + " '" + text + "': expected name=value[,name=value...]");
        }
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw UsageError("'" + item + "' in " + where + " has no value: expected name=value, e.g. " +
                             "innodb_lock_wait_timeout=5");
        std::string name = trimmed(item.substr(0, eq));
        std::string value = trimmed(item.substr(eq + 1));
        check_session_variable(name, value, where);
        variables.emplace_back(std::move(name), std::move(value));
    }
    return variables;
}

}  // namespace rowpump

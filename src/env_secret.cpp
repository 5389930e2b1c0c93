#include "env_secret.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rowpump/error.hpp"

namespace rowpump {

std::string secret_from_env(const char* variable, const char* file_variable, std::string_view what,
                            EmptySecretFile empty) {
    if (const char* value = std::getenv(variable); value && *value) return value;
    const char* path = std::getenv(file_variable);
    if (!path || !*path) return {};
    const auto fail = [&](const std::string& why) {
        throw UsageError("cannot read the " + std::string(what) + " file named by " + file_variable + " (" + path +
                         "): " + why);
    };
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        fail("it is a directory; expected a file holding the " + std::string(what));
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) fail(std::strerror(errno));
    std::string secret = text.str();
    if (secret.ends_with("\r\n")) secret.resize(secret.size() - 2);
    else if (secret.ends_with('\n')) secret.pop_back();
    if (secret.empty() && empty == EmptySecretFile::refused) fail("the file is empty; write the " + std::string(what) + " in it");
    return secret;
}

}  // namespace rowpump

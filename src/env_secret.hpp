#pragma once
// A secret from the environment, never from argv: $VARIABLE itself, or the file that $VARIABLE_FILE names
// (a Kubernetes secret, a systemd credential). Passwords, cursor keys and the HTTP endpoint's token are all
// read here, so that they are read alike. Private.
#include <string>
#include <string_view>

namespace rowpump {

enum class EmptySecretFile { allowed, refused };

// $variable when it is set and not empty; else the file $file_variable names, without one trailing line
// end ("\n" or "\r\n", as editors leave it: a secret may itself end in spaces); else "". A file that is a
// directory or cannot be read, or an empty one when `empty` refuses it, is a UsageError that names the
// variable and the path, and calls the secret `what` ("password", "cursor key"); its content is never shown.
std::string secret_from_env(const char* variable, const char* file_variable, std::string_view what,
                            EmptySecretFile empty = EmptySecretFile::allowed);

}  // namespace rowpump

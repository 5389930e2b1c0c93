#pragma once
// ${NAME} in job files: connection URLs and other per-machine values come from the environment, so a
// job file can be committed without secrets or host names.
#include <string>
#include <string_view>

#include "rowpump/error.hpp"

namespace rowpump::job {

class UnsetVariable : public UsageError {
public:
    explicit UnsetVariable(const std::string& name) : UsageError("environment variable " + name + " is not set") {}
};

// Replaces every ${NAME} by the value of the environment variable NAME (NAME: letters, digits and '_',
// not starting with a digit); "$${" is a literal "${". Any other '$' is kept as it is. Throws UnsetVariable
// when a variable is not set, and UsageError for a "${" without a valid NAME and closing '}'.
std::string expand_env(std::string_view text);

}  // namespace rowpump::job

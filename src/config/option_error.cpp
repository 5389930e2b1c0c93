#include "config/option_error.hpp"

namespace rowpump::config {

std::string render(const OptionMessage& message, Spelling spelling) {
    std::string out;
    for (const auto& part : message) out += part.option ? spelled(*part.option, spelling) : part.text;
    return out;
}

OptionMessage listed(const std::vector<OptionId>& options) {
    OptionMessage message;
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (i > 0) message.emplace_back(i + 1 == options.size() ? " and " : ", ");
        message.emplace_back(options[i]);
    }
    return message;
}

OptionError::OptionError(OptionMessage message)
    : UsageError(config::render(message, Spelling::cli)), NamesOptions(std::move(message)) {}

OptionFailure::OptionFailure(OptionMessage message)
    : Error(config::render(message, Spelling::cli)), NamesOptions(std::move(message)) {}

std::optional<OptionId> NamesOptions::subject() const {
    for (const auto& part : message_)
        if (part.option) return part.option;
    return std::nullopt;
}

std::string error_text(const std::exception& error, Spelling spelling) {
    if (const auto* named = dynamic_cast<const NamesOptions*>(&error)) return named->render(spelling);
    return error.what();
}

}  // namespace rowpump::config

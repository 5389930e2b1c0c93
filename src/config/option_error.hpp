#pragma once
// Errors about options, written once with the options named by the schema, not by one front end's
// spelling: the command line shows `--delay-score`, a job file `sink.delay_score`. what() reads as on the
// command line (the library's callers had that text before); a front end calls render() for its own.
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "config/option_schema.hpp"
#include "rowpump/error.hpp"

namespace rowpump::config {

// A piece of a message: plain text, or an option to be spelled by the front end.
struct MessagePart {
    MessagePart(OptionId id) : option(id) {}  // NOLINT: implicit, so a message reads as a list
    MessagePart(std::string piece) : text(std::move(piece)) {}  // NOLINT
    MessagePart(const char* piece) : text(piece) {}  // NOLINT
    std::optional<OptionId> option;
    std::string text;
};
using OptionMessage = std::vector<MessagePart>;

std::string render(const OptionMessage& message, Spelling spelling);
// "--list-key and --delay-score", "--a, --b and --c".
OptionMessage listed(const std::vector<OptionId>& options);

// The options an error names, and its text for each front end.
class NamesOptions {
public:
    explicit NamesOptions(OptionMessage message) : message_(std::move(message)) {}
    std::string render(Spelling spelling) const { return config::render(message_, spelling); }
    // The option the message is about: the first one it names.
    std::optional<OptionId> subject() const;

private:
    OptionMessage message_;
};

// Bad usage (exit 2) about options.
class OptionError : public UsageError, public NamesOptions {
public:
    explicit OptionError(OptionMessage message);
};

// A failure of the run (exit 1) whose advice names options ("... or give a longer wait with --set-vars").
class OptionFailure : public Error, public NamesOptions {
public:
    explicit OptionFailure(OptionMessage message);
};

// An error's text with options as `spelling` writes them: an OptionError rendered again, others as they are.
std::string error_text(const std::exception& error, Spelling spelling);

}  // namespace rowpump::config

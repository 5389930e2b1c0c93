// password_spans() scans every argument and every error line: it must find what the regular expression
// it replaced found, and stay linear in time and constant in stack on arguments of any length.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "rowpump/options.hpp"
#include "url.hpp"

namespace rowpump {
namespace {

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// The expression password_spans() used to evaluate. It recursed once per character of a match attempt, so it
// is only an oracle for short texts here.
Spans regex_spans(const std::string& text) {
    static const std::regex credentials(
        R"([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:([^\s]*)@|(?:^|[\s'"(<=,])[^\s:/@'"]*:(?!//)([^\s]*)@)");
    Spans spans;
    for (std::sregex_iterator match(text.begin(), text.end(), credentials), end; match != end; ++match) {
        const int group = (*match)[1].matched ? 1 : 2;
        spans.emplace_back(static_cast<std::size_t>(match->position(group)),
                           static_cast<std::size_t>(match->length(group)));
    }
    return spans;
}

TEST(PasswordSpans, FindWhatTheRegularExpressionFoundOnRandomTexts) {
    // The characters that matter to the grammar, and a few that do not.
    const std::string alphabet = "ab1:/@ \n'\"(<=,+.-x";
    std::mt19937 random(20261203);
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
    std::uniform_int_distribution<std::size_t> length(0, 24);
    std::size_t with_password = 0;
    for (int round = 0; round < 200000; ++round) {
        std::string text(length(random), ' ');
        for (char& c : text) c = alphabet[pick(random)];
        const Spans expected = regex_spans(text);
        with_password += expected.empty() ? 0 : 1;
        ASSERT_EQ(password_spans(text), expected) << "text: [" << text << "]";
    }
    // The sweep must reach the interesting cases, not only texts without a password.
    EXPECT_GT(with_password, 10000u);
}

TEST(PasswordSpans, FindWhatTheRegularExpressionFoundOnUrlShapes) {
    for (const std::string text :
         {"mysql://u:p@h/db", "x mysql://u:p@ss@h/db y", "1http://u:p@h", "=u:p@h", "'u:p@h'", "(redis://:p@h",
          "scheme://user@host", "a://b:c", "u:@h", ":@", "u://x:p@h", "a:b@c d:e@f", "--mysql=u:p@h/x://y"}) {
        EXPECT_EQ(password_spans(text), regex_spans(text)) << text;
    }
}

TEST(PasswordSpans, ScanAMegabyteArgumentWithoutSpaces) {
    // A 100,000-value IN list, and a megabyte of one character that may start a URL without a scheme
    // (each '=' could open one): the expression ended in SIGSEGV on a run of some 28,000 characters.
    std::string in_list = "id IN (";
    for (int value = 1; value <= 100000; ++value) in_list += std::to_string(value) + ",";
    in_list.back() = ')';
    EXPECT_TRUE(password_spans(in_list).empty());

    std::string equals(1 << 20, '=');
    EXPECT_TRUE(password_spans(equals).empty());
    equals += ":secret@host";
    const Spans spans = password_spans(equals);
    ASSERT_EQ(spans.size(), 1u);
    EXPECT_EQ(equals.substr(spans[0].first, spans[0].second), "secret");

    const std::string long_url = "mysql://u:" + std::string(1 << 20, 'p') + "@h/db";
    EXPECT_EQ(redact_url(long_url), "mysql://u:***@h/db");
}

// The last line of a failed command hides the passwords that were given, not the help's placeholders.
TEST(RedactErrorLine, KeepsTheUsagePlaceholdersAndHidesGivenPasswords) {
    const std::string usage = "unsupported sink 'kafka://b': expected stdout, file:PATH, redis://[user:pass@]host:port/db "
                              "or mysql://user:pass@host:port/db";
    EXPECT_EQ(redact_error_line(usage, {}), usage);
    EXPECT_EQ(redact_error_line("cannot reach mysql://app:s3cret@db/x", {"s3cret"}), "cannot reach mysql://app:***@db/x");
    // A password the user did not give on the command line (a job file's) is hidden all the same.
    EXPECT_EQ(redact_error_line("cannot reach mysql://app:other@db/x", {}), "cannot reach mysql://app:***@db/x");
    // A given password that happens to be a placeholder word is hidden wherever it stands.
    EXPECT_EQ(redact_error_line("mysql://u:pass@h/x, expected mysql://user:pass@host", {"pass"}),
              "mysql://u:***@h/x, expected mysql://user:***@host");
}

}  // namespace
}  // namespace rowpump

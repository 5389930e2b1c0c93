// The sink section's template, big_numbers and Redis names (docs/payloads-and-names.md): read into the
// JobSpec, and each mistake a ConfigError at the value's line and column. No server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rowpump/error.hpp"
#include "rowpump/job.hpp"

namespace rowpump {
namespace {

const std::string source = "source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: goods\n";

// Loads `sink` (the sink section's lines) under the minimal source.
JobSpec load(const std::string& sink) {
    const auto path = std::filesystem::temp_directory_path() / ("rp_payload_names_" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(path) << source << "sink:\n  uri: redis://127.0.0.1:6379/0\n  queue: goods\n" << sink;
    struct Remove {
        std::filesystem::path path;
        ~Remove() { std::filesystem::remove(path); }
    } remove{path};
    return load_job(path.string());
}

TEST(PayloadNamesYamlTest, TheSinkSectionSetsEveryOption) {
    const JobSpec spec = load(
        "  format: template\n  template: \"{id}\"\n  big_numbers: string\n  list_key: \"goods:{level}:task\"\n"
        "  delayed_key: goods:delay\n  delay_score: s\n  delayed_members: bare\n  state_prefix: \"app:job:\"\n");
    EXPECT_EQ(spec.format, Format::payload_template);
    EXPECT_EQ(spec.payload.template_text, "{id}");
    EXPECT_EQ(spec.payload.big_numbers, BigNumbers::string);
    EXPECT_EQ(spec.sink.redis_only.list_key, "goods:{level}:task");
    EXPECT_EQ(spec.sink.redis_only.delayed_key, "goods:delay");
    EXPECT_EQ(spec.sink.redis_only.delay_score, DelayScore::seconds);
    EXPECT_EQ(spec.sink.redis_only.delayed_members, DelayedMembers::bare);
    EXPECT_EQ(spec.state_prefix, "app:job:");
}

TEST(PayloadNamesYamlTest, MistakesAreErrorsAtTheirValue) {
    const auto error_at = [](const std::string& sink) -> std::string {
        try {
            load(sink);
        } catch (const ConfigError& error) {
            return std::to_string(error.line()) + ":" + std::to_string(error.column()) + " " + error.what();
        }
        return "loaded";
    };
    EXPECT_NE(error_at("  format: template\n  template: \"id={id\"\n").find("8:13 "), std::string::npos);
    EXPECT_NE(error_at("  format: template\n  template: \"id={id\"\n").find("at position 4"), std::string::npos);
    EXPECT_NE(error_at("  template: \"{id}\"\n").find("7:13 "), std::string::npos) << "a template without its format";
    EXPECT_NE(error_at("  format: template\n").find("empty template"), std::string::npos);
    EXPECT_NE(error_at("  list_key: \"goods:{lvl}\"\n").find("unknown placeholder {lvl} at position 7"), std::string::npos);
    EXPECT_NE(error_at("  delay_score: seconds\n").find("7:16 "), std::string::npos);
    EXPECT_NE(error_at("  state_prefix: \"a*\"\n").find("glob character"), std::string::npos);
}

}  // namespace
}  // namespace rowpump

#include "job/option_fields.hpp"

#include <stdexcept>

#include "bounded_number.hpp"

namespace rowpump::job {

namespace {

std::string key_of(const config::OptionSpec& spec) { return spec.yaml.substr(spec.yaml.rfind('.') + 1); }

// The value at a dotted path of the tree; nullopt when a part is missing.
std::optional<YAML::Node> node_at(const YAML::Node& root, const std::string& path) {
    if (path.empty()) return std::nullopt;
    YAML::Node node;
    node.reset(root);
    for (std::size_t start = 0;;) {
        const auto dot = path.find('.', start);
        const YAML::Node& map = node;
        if (!map.IsMap()) return std::nullopt;
        YAML::Node next = map[path.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
        if (!next.IsDefined() || next.IsNull()) return std::nullopt;
        node.reset(next);
        if (dot == std::string::npos) return node;
        start = dot + 1;
    }
}

}  // namespace

const config::OptionSpec& field_spec(const Section& section, OptionId id, config::ValueKind kind) {
    const auto& spec = config::option(id);
    const std::string& path = section.self().path();
    const std::string expected_path = path.empty() ? key_of(spec) : path + "." + key_of(spec);
    if (spec.kind != kind || spec.yaml.empty() || spec.yaml != expected_path)
        throw std::logic_error("option " + spec.cli + " is read as another kind, or from another section (" + path + ")");
    return spec;
}

std::optional<Field> option_field(const Section& section, OptionId id) {
    return section.optional(key_of(config::option(id)));
}

std::optional<Field> read_option(const Section& section, OptionId id, std::string& target) {
    field_spec(section, id, config::ValueKind::text);
    auto field = option_field(section, id);
    if (field) target = field->text();
    return field;
}

std::optional<Field> read_option(const Section& section, OptionId id, std::vector<std::string>& target) {
    field_spec(section, id, config::ValueKind::names);
    auto field = option_field(section, id);
    if (field) target = field->names();
    return field;
}

std::optional<Field> read_option(const Section& section, OptionId id, bool& target) {
    field_spec(section, id, config::ValueKind::flag);
    auto field = option_field(section, id);
    if (field) target = field->choice({"true", "false"}) == "true";
    return field;
}

std::optional<Field> read_option(const Section& section, OptionId id, std::uint64_t& target) {
    const auto& spec = field_spec(section, id, config::ValueKind::whole);
    auto field = option_field(section, id);
    if (field) target = field->whole(spec.whole.min, spec.whole.max);
    return field;
}

std::optional<Field> read_option(const Section& section, OptionId id, double& target) {
    const auto& spec = field_spec(section, id, config::ValueKind::real);
    auto field = option_field(section, id);
    if (!field) return field;
    const std::string text = field->text();
    const auto value = parse_bounded_number(text, spec.real);
    if (!value) field->fail("expected " + describe(spec.real) + ", got '" + text + "'");
    target = *value;
    return field;
}

void fail_at(const Field& field, const std::exception& error) {
    const auto* named = dynamic_cast<const config::NamesOptions*>(&error);
    if (!named) field.fail(error.what());
    const std::string text = named->render(config::Spelling::yaml);
    if (text.starts_with(field.path() + " ")) field.fail_plain(text);
    field.fail(text);
}

void at_option(const Origin& origin, const YAML::Node& root, const std::function<void()>& check) {
    try {
        check();
    } catch (const config::OptionError& error) {
        const std::string path = error.subject() ? config::option(*error.subject()).yaml : std::string();
        if (auto node = node_at(root, path)) fail_at(Field(origin, *node, path), error);
        throw ConfigError(origin.file, 0, 0, error.render(config::Spelling::yaml));
    }
}

}  // namespace rowpump::job

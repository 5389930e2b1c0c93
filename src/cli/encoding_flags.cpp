#include "cli/encoding_flags.hpp"

#include "cli/schema_flags.hpp"

namespace rowpump::cli {

void add_encoding_flags(CLI::App& command, EncodingFlags& flags) {
    add_schema_options(command, {{OptionId::csv_null, flags.csv_null}, {OptionId::json_columns, flags.json_columns}});
}

void apply_encoding_flags(const EncodingFlags& flags, PayloadOptions& payload) {
    payload.csv_null = flags.csv_null;
    payload.json_columns = flags.json_columns;
}

}  // namespace rowpump::cli

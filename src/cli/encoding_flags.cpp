#include "cli/encoding_flags.hpp"

namespace rowpump::cli {

void add_encoding_flags(CLI::App& command, EncodingFlags& flags) {
    command.add_option("--csv-null", flags.csv_null,
                       "CSV: NULL as an empty field (empty, the default; an empty string is \"\") or as \\N, as "
                       "mysqldump --tab writes it (backslashes in values are then doubled, for LOAD DATA ... "
                       "ESCAPED BY '\\\\')")
        ->check(CLI::IsMember({"empty", "\\N"}));
    command.add_option("--json-columns", flags.json_columns,
                       "JSON: a JSON column as a string holding its text (string, the default) or as the JSON value "
                       "itself (embed; a value that is not JSON fails the run)")
        ->check(CLI::IsMember({"string", "embed"}));
}

void apply_encoding_flags(const EncodingFlags& flags, PayloadOptions& payload) {
    payload.csv_null = parse_csv_null(flags.csv_null);
    payload.json_columns = parse_json_columns(flags.json_columns);
}

}  // namespace rowpump::cli

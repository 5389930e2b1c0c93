#pragma once
// The flags that say how values are written, shared by `read` and `backfill` (docs/payloads-and-names.md).
#include <CLI/CLI.hpp>

#include <string>

#include "rowpump/encode.hpp"

namespace rowpump::cli {

struct EncodingFlags {
    CsvNull csv_null = CsvNull::empty;
    JsonColumns json_columns = JsonColumns::string;
};

void add_encoding_flags(CLI::App& command, EncodingFlags& flags);
// Sets the payload options the flags name.
void apply_encoding_flags(const EncodingFlags& flags, PayloadOptions& payload);

}  // namespace rowpump::cli

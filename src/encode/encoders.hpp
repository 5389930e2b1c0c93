#pragma once
// The encoders behind make_encoder(), one per format.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

std::unique_ptr<RowEncoder> make_json_encoder(std::vector<Column> columns, BigNumbers big_numbers = BigNumbers::number);
std::unique_ptr<RowEncoder> make_csv_encoder(std::vector<Column> columns);
std::unique_ptr<RowEncoder> make_template_encoder(const std::string& template_text, std::vector<Column> columns,
                                                  BigNumbers big_numbers);

// One value as JSON, as the JSON encoder writes it (text that is not NULL).
void append_json_value(ColumnKind kind, std::string_view text, BigNumbers big_numbers, std::string& out);

}  // namespace rowpump

#pragma once
// The encoders behind make_encoder(), one per format.
#include <memory>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

std::unique_ptr<RowEncoder> make_json_encoder(std::vector<Column> columns);
std::unique_ptr<RowEncoder> make_csv_encoder(std::vector<Column> columns);

}  // namespace rowpump

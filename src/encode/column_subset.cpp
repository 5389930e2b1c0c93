// Some of a row's columns as one JSON object, for Celery's kwargs and the row argument beside them: the
// values are the JSON format's (append_json_value), picked by their place in the page.
#include "encode/encoders.hpp"
#include "encode/json_string.hpp"

namespace rowpump {

namespace {

class ColumnSubset final : public RowEncoder {
public:
    ColumnSubset(std::vector<Column> columns, std::vector<std::size_t> picked, JsonStyle style)
        : columns_(std::move(columns)), picked_(std::move(picked)), style_(style) {
        for (const std::size_t index : picked_) {
            keys_.push_back(json_member_prefix(columns_.at(index).name, keys_.empty()));
        }
    }

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (picked_.empty()) {
            out.append("{}", 2);
            return;
        }
        for (std::size_t i = 0; i < picked_.size(); ++i) {
            out.append(keys_[i]);
            const auto value = page.value(row, picked_[i]);
            if (!value) out.append("null", 4);
            else append_json_value(columns_[picked_[i]], *value, style_, out);
        }
        out.push_back('}');
    }

    std::string header() const override { return {}; }

private:
    std::vector<Column> columns_;
    std::vector<std::size_t> picked_;  // page columns, in the order written
    std::vector<std::string> keys_;    // each picked column's name as JSON, with the `{` or `,` before it
    JsonStyle style_;
};

}  // namespace

std::unique_ptr<RowEncoder> make_column_subset(std::vector<Column> columns, std::vector<std::size_t> picked,
                                               JsonStyle style) {
    return std::make_unique<ColumnSubset>(std::move(columns), std::move(picked), style);
}

}  // namespace rowpump

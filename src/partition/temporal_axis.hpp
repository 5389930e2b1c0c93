#pragma once
// A DATE, DATETIME or TIMESTAMP key's first column as a line of numbers (days, or microseconds), so that
// the estimated planner cuts it by arithmetic as it cuts an integer key. Values are the server's text
// ("2024-06-01" or "2024-06-01 12:00:00.250", as CAST(... AS CHAR) writes them); offsets are turned back
// into such text for the server to compare, so rowpump never compares two dates itself.
#include <cstdint>
#include <optional>
#include <string>

namespace rowpump {

class TemporalAxis {
public:
    // nullopt when either end is not a plain calendar value (a zero date, say) or hi is not above lo.
    static std::optional<TemporalAxis> between(const std::string& lo, const std::string& hi, bool date_only);

    std::uint64_t width() const { return width_; }
    std::string at(std::uint64_t offset) const;

private:
    TemporalAxis() = default;
    std::int64_t start_ = 0;  // days or microseconds since 1970-01-01
    std::uint64_t width_ = 0;
    bool date_only_ = false;
};

}  // namespace rowpump

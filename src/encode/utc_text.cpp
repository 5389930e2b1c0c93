#include "encode/utc_text.hpp"

#include <chrono>
#include <cstdio>

namespace rowpump {

int append_utc_seconds(std::int64_t unix_us, std::string& out) {
    using namespace std::chrono;
    const sys_time<microseconds> time{microseconds(unix_us)};
    const auto day = floor<days>(time);
    const year_month_day date{day};
    const hh_mm_ss clock{time - day};
    char text[32];
    const int length = std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(date.year()),
                                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                                     static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                                     static_cast<int>(clock.seconds().count()));
    out.append(text, static_cast<std::size_t>(length));
    return static_cast<int>(clock.subseconds().count());
}

}  // namespace rowpump

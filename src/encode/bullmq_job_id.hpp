#pragma once
// A BullMQ job's name and custom id, as BullMQ 5 accepts them (job.ts validateOptions): the id comes from
// the row through a brace template ("order-{id}"), so the same row always gets the same id and BullMQ's
// own deduplication (an id whose job hash exists is skipped) holds across runs. BullMQ refuses an id that
// is an integer (it would collide with its counter's ids) or holds ':' (its key separator).
#include <string>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/page.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

// Throws config::OptionError (exit 2) for a missing or unusable job name, and for an id template that is
// malformed, names no column, or holds ':' or a control character in its text.
void check_bullmq_task(const TaskSpec& task);

class BullmqJobId {
public:
    // Throws config::OptionError when a placeholder names no column of `columns`.
    BullmqJobId(const std::string& id_template, const std::vector<Column>& columns);

    // Appends the row's id. Throws UsageError for a NULL value, or an id BullMQ would refuse.
    void append(const Page& page, std::size_t row, std::string& out) const;

private:
    struct Part {
        std::string text;             // literal text, when column is npos
        std::size_t column = 0;
        bool placeholder = false;
    };
    std::string template_;
    std::vector<Part> parts_;
    std::vector<std::string> names_;  // of the columns, for errors
};

}  // namespace rowpump

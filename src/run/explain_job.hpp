#pragma once
// What `rowpump explain` shows: the job's outline (job_outline.hpp) with, for each range, the server's
// EXPLAIN of the statements of its first page, with the same bound values. Private to rowpump.
#include <string>
#include <vector>

#include "run/job_outline.hpp"

namespace rowpump {

// A result set as text; NULL is "NULL".
struct TextTable {
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
};

struct ExplainedQuery {
    std::string label;                // "first page", "first page of the NULL-key pass", ...
    std::string sql;
    std::vector<std::string> params;  // the bound values in placeholder order: 42, 'abc'
    TextTable explain;
};

struct ExplainedRange {
    Partition partition;
    std::vector<ExplainedQuery> queries;
};

struct JobExplanation {
    JobOutline outline;
    std::vector<ExplainedRange> ranges;  // the outline's, in its order
};

// Outlines the job and EXPLAINs the first page of every range on one connection; for id-in, phase 1 is
// run to give phase 2 the keys the reader would send. Throws UsageError for a bad spec.
JobExplanation explain_job(const JobSpec& spec);

}  // namespace rowpump

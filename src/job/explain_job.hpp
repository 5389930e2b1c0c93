#pragma once
// What `rowpump explain` shows: for each range of a job, the SQL its first page runs and the server's
// EXPLAIN of that statement, with the same bound values. Private to rowpump (the CLI's explain).
#include <cstdint>
#include <string>
#include <vector>

#include "rowpump/job.hpp"

namespace rowpump::job {

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
    std::string table;                 // quoted schema.name
    std::vector<std::string> key;      // the paging key's columns
    std::string key_reason;            // why that key
    PagingStrategy strategy = PagingStrategy::keyset;
    PartitionStrategy partition_strategy = PartitionStrategy::balanced;
    std::uint64_t estimated_rows = 0;
    std::string planning;  // how the ranges were planned and what it took
    std::vector<ExplainedRange> ranges;
};

// Plans the job with the run's own functions (run/job_plan.hpp, PageSql::page; no row read or written) and EXPLAINs
// the first page of every range on one connection. Throws UsageError for a bad spec.
JobExplanation explain_job(const JobSpec& spec);

}  // namespace rowpump::job

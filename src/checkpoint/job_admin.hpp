#pragma once
// What `rowpump job list|show|drop|reset` sees of the jobs kept beside a queue, whichever store keeps them
// (Redis keys, MySQL tables). Keys are shown as stored (the key codec's JSON arrays of text): the admin
// reads no table, so it does not know the key's column types, and needs none to show or remove a job.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rowpump {

struct AdminRange {
    std::uint32_t number = 0;
    std::string lo, hi;     // "" for an open bound
    std::string checkpoint; // the last key written; "" when nothing is
    std::uint64_t rows_written = 0;
    std::uint64_t estimated_rows = 0;
    bool done = false;
    std::string owner;           // who holds the lease: "" for nobody, else the store's id of a connection
    std::string owner_address;   // where that connection comes from (host:port), when it is alive
    bool lease_live = false;     // held by a live connection whose lease has not expired
    std::optional<std::int64_t> written_at_ms;  // Unix ms of the range's last page (stores that keep it)
};

struct AdminJob {
    std::string id;
    std::string fingerprint;
    std::string description;  // "table `db`.`t` key (`id`) columns (...) -> redis://... queue q (json)"
    std::vector<AdminRange> ranges;

    std::uint64_t rows_written() const;
    std::uint64_t estimated_rows() const;
    std::size_t ranges_done() const;
    bool finished() const { return !ranges.empty() && ranges_done() == ranges.size(); }
    std::size_t live_leases() const;
    std::optional<std::int64_t> written_at_ms() const;  // the newest range's
    std::string table() const;                         // from the description: "`db`.`t`"
};

// What drop and reset may remove.
struct RemoveRule {
    bool only_finished = false;  // reset: a job that has not finished is left alone
    bool force = false;          // remove even while a live connection holds a lease
};

enum class RemoveOutcome { removed, missing, leased, unfinished };

struct RemoveResult {
    RemoveOutcome outcome = RemoveOutcome::missing;
    AdminJob job;  // as it was found (empty when missing)
};

class JobAdmin {
public:
    virtual ~JobAdmin() = default;
    // Every job kept there, with its ranges, by job id.
    virtual std::vector<AdminJob> list() = 0;
    virtual std::optional<AdminJob> find(const std::string& job_id) = 0;
    // Removes the job's state in one atomic step, when `rule` allows it as the job is at that moment. A run
    // that still writes the job loses its leases: its next page is refused, nothing of it is written.
    virtual RemoveResult remove(const std::string& job_id, RemoveRule rule) = 0;
    // Where the jobs are kept, and how a lease's owner is named: "keys rowpump:job:* of redis://h:6379/0".
    virtual std::string where() const = 0;
    virtual std::string owner_word() const = 0;  // "client" (Redis), "connection" (MySQL)
};

// Whether a removal is allowed for the job as found; shared by the stores so they refuse alike.
RemoveOutcome removal_verdict(const AdminJob& job, RemoveRule rule);

}  // namespace rowpump

#include "cli/job_view.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <ctime>

#include "json_members.hpp"

namespace rowpump::cli {

namespace {

std::string rows_text(std::uint64_t written, std::uint64_t estimated) {
    std::string text = std::to_string(written) + "/~" + std::to_string(estimated);
    if (estimated > 0) text += " (" + std::to_string(std::min<std::uint64_t>(written * 100 / estimated, 100)) + "%)";
    return text;
}

std::string owner_text(const AdminRange& range, const JobAdmin& admin) {
    if (range.owner.empty()) return "-";
    std::string text = admin.owner_word() + " " + range.owner;
    if (!range.owner_address.empty()) text += " at " + range.owner_address;
    return text + (range.lease_live ? "" : " (lease not live)");
}

std::string leases_text(const AdminJob& job, const JobAdmin& admin) {
    std::string owners;
    for (const AdminRange& range : job.ranges)
        if (range.lease_live) owners += (owners.empty() ? "" : ", ") + owner_text(range, admin);
    return std::to_string(job.live_leases()) + (owners.empty() ? "" : " (" + owners + ")");
}

std::string range_state(const AdminRange& range) {
    if (range.done) return "done";
    return range.lease_live ? "leased" : "waiting";
}

std::string bound(const std::string& stored) { return stored.empty() ? "-" : stored; }

std::string padded(const std::string& text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

using json::member;

// A stored key is the key codec's JSON array: written as that array, an open bound as null.
void key_field(JsonWriter& json, const char* key, const std::string& stored) {
    json.Key(key);
    if (stored.empty()) json.Null();
    else json.RawValue(stored.c_str(), stored.size(), rapidjson::kArrayType);
}

void time_field(JsonWriter& json, const char* key, const std::optional<std::int64_t>& unix_ms) {
    json.Key(key);
    if (!unix_ms) {
        json.Null();
        return;
    }
    const std::string text = time_text(unix_ms);
    json.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_range(JsonWriter& json, const AdminRange& range) {
    json.StartObject();
    member(json, "number", range.number);
    member(json, "state", range_state(range));
    key_field(json, "lo", range.lo);
    key_field(json, "hi", range.hi);
    key_field(json, "checkpoint", range.checkpoint);
    member(json, "rows_written", range.rows_written);
    member(json, "estimated_rows", range.estimated_rows);
    json.Key("owner");
    if (range.owner.empty()) json.Null();
    else json.String(range.owner.c_str());
    member(json, "owner_address", range.owner_address);
    member(json, "lease_live", range.lease_live);
    time_field(json, "written_at", range.written_at_ms);
    json.EndObject();
}

void write_job(JsonWriter& json, const AdminJob& job, const JobAdmin& admin) {
    json.StartObject();
    member(json, "job_id", job.id);
    member(json, "table", job.table());
    member(json, "state", job_state(job));
    member(json, "store", admin.where());
    member(json, "rows_written", job.rows_written());
    member(json, "estimated_rows", job.estimated_rows());
    member(json, "ranges_done", job.ranges_done());
    member(json, "live_leases", job.live_leases());
    time_field(json, "written_at", job.written_at_ms());
    member(json, "fingerprint", job.fingerprint);
    member(json, "definition", job.description);
    member(json, "owner_kind", admin.owner_word());
    json.Key("ranges");
    json.StartArray();
    for (const AdminRange& range : job.ranges) write_range(json, range);
    json.EndArray();
    json.EndObject();
}

}  // namespace

std::string job_state(const AdminJob& job) {
    if (job.ranges.empty()) return "empty";
    if (job.finished()) return "finished";
    return job.live_leases() > 0 ? "running" : "stopped";
}

std::string time_text(const std::optional<std::int64_t>& unix_ms) {
    if (!unix_ms) return "-";
    const std::time_t seconds = static_cast<std::time_t>(*unix_ms / 1000);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    return text;
}

std::string jobs_table(const std::vector<AdminJob>& jobs, const JobAdmin& admin) {
    if (jobs.empty()) return "no jobs in " + admin.where() + "\n";
    std::size_t id_width = 6, table_width = 7;
    for (const AdminJob& job : jobs) {
        id_width = std::max(id_width, job.id.size() + 2);
        table_width = std::max(table_width, job.table().size() + 2);
    }
    std::string text = padded("JOB", id_width) + padded("TABLE", table_width) + padded("STATE", 10) +
                       padded("ROWS", 26) + padded("RANGES", 9) + padded("LAST WRITTEN", 22) + "LEASES\n";
    for (const AdminJob& job : jobs)
        text += padded(job.id, id_width) + padded(job.table(), table_width) + padded(job_state(job), 10) +
                padded(rows_text(job.rows_written(), job.estimated_rows()), 26) +
                padded(std::to_string(job.ranges_done()) + "/" + std::to_string(job.ranges.size()), 9) +
                padded(time_text(job.written_at_ms()), 22) + leases_text(job, admin) + "\n";
    return text;
}

std::string job_text(const AdminJob& job, const JobAdmin& admin) {
    std::string text = "job " + job.id + " in " + admin.where() + "\n";
    text += "  table         " + job.table() + "\n";
    text += "  state         " + job_state(job) + ": " + std::to_string(job.ranges_done()) + " of " +
            std::to_string(job.ranges.size()) + " ranges done, " + rows_text(job.rows_written(), job.estimated_rows()) +
            " rows written\n";
    text += "  last written  " + time_text(job.written_at_ms()) + "\n";
    text += "  leases        " + leases_text(job, admin) + "\n";
    text += "  definition    " + job.description + "\n";
    text += "  " + padded("RANGE", 7) + padded("STATE", 9) + padded("ROWS", 26) + padded("FROM", 16) +
            padded("TO", 16) + padded("CHECKPOINT", 16) + "OWNER\n";
    for (const AdminRange& range : job.ranges)
        text += "  " + padded(std::to_string(range.number), 7) + padded(range_state(range), 9) +
                padded(rows_text(range.rows_written, range.estimated_rows), 26) + padded(bound(range.lo), 16) +
                padded(bound(range.hi), 16) + padded(bound(range.checkpoint), 16) + owner_text(range, admin) + "\n";
    return text;
}

std::string jobs_json(const std::vector<AdminJob>& jobs, const JobAdmin& admin) {
    rapidjson::StringBuffer buffer;
    JsonWriter json(buffer);
    json.StartArray();
    for (const AdminJob& job : jobs) write_job(json, job, admin);
    json.EndArray();
    return std::string(buffer.GetString()) + "\n";
}

std::string job_json(const AdminJob& job, const JobAdmin& admin) {
    rapidjson::StringBuffer buffer;
    JsonWriter json(buffer);
    write_job(json, job, admin);
    return std::string(buffer.GetString()) + "\n";
}

}  // namespace rowpump::cli

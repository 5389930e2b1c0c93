// A list costs one SCAN of the database (a cursor over every key, COUNT 1000 a step), then two pipelined
// rounds: the jobs' meta hashes, then their ranges. CLIENT LIST, read once, says which owners are alive.
#include "backend/redis/redis_job_admin.hpp"

#include <algorithm>
#include <map>

#include "backend/redis/redis_queue_keys.hpp"
#include "redis/connection.hpp"

namespace rowpump {

namespace {

using Argv = std::vector<std::string_view>;

// SCAN's MATCH is a glob: the prefix's own glob characters are taken literally.
std::string glob_escaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out.push_back('\\');
        out.push_back(c);
    }
    return out;
}

constexpr std::string_view meta_suffix = ":meta";

// CLIENT LIST: "id=7 addr=127.0.0.1:5400 ..." a line each.
std::map<std::string, std::string> live_clients(redis::Connection& connection) {
    std::map<std::string, std::string> clients;
    const std::string text = connection.command({"CLIENT", "LIST"}).text;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        const auto field = [&](const std::string& name) {
            const std::size_t start = line.rfind(name + "=", 0) == 0 ? 0 : line.find(" " + name + "=");
            if (start == std::string::npos) return std::string();
            const std::size_t value = line.find('=', start) + 1;
            return line.substr(value, line.find(' ', value) - value);
        };
        if (const std::string id = field("id"); !id.empty()) clients[id] = field("addr");
    }
    return clients;
}

std::int64_t server_ms(redis::Connection& connection) {
    const auto time = connection.command({"TIME"}).elements;
    return std::stoll(time.at(0).text) * 1000 + std::stoll(time.at(1).text) / 1000;
}

std::uint64_t number_or_zero(const redis::Reply& reply) { return reply.is_nil() || reply.text.empty() ? 0 : std::stoull(reply.text); }

class RedisJobAdmin final : public JobAdmin {
public:
    RedisJobAdmin(const RedisOptions& options, std::string prefix)
        : connection_(redis::Connection::connect_at_start(options)), prefix_(std::move(prefix)),
          shown_(options.redacted()) {}

    std::vector<AdminJob> list() override {
        return connection_.retrying([&] { return read_jobs(job_ids()); });
    }

    std::optional<AdminJob> find(const std::string& job_id) override {
        auto jobs = connection_.retrying([&] { return read_jobs({job_id}); });
        if (jobs.empty()) return std::nullopt;
        return std::move(jobs.front());
    }

    RemoveResult remove(const std::string& job_id, RemoveRule rule) override {
        return connection_.retrying([&] {
            // A running job moves its ranges at every page, which aborts the EXEC: forced, it is tried until
            // it lands between two pages.
            for (int attempt = 0;; ++attempt) {
                if (auto result = remove_once(job_id, rule)) return *result;
                if (!rule.force && attempt >= 4) {
                    auto jobs = read_jobs({job_id});
                    if (jobs.empty()) return RemoveResult{RemoveOutcome::missing, {}};
                    return RemoveResult{RemoveOutcome::leased, std::move(jobs.front())};
                }
            }
        });
    }

    std::string where() const override { return "keys " + prefix_ + "* of " + shown_; }
    std::string owner_word() const override { return "client"; }

private:
    std::vector<std::string> job_ids() {
        std::vector<std::string> ids;
        const std::string match = glob_escaped(prefix_) + "*" + std::string(meta_suffix);
        std::string cursor = "0";
        do {
            const auto reply = connection_.command({"SCAN", cursor, "MATCH", match, "COUNT", "1000"});
            cursor = reply.elements.at(0).text;
            for (const auto& key : reply.elements.at(1).elements)
                ids.push_back(key.text.substr(prefix_.size(), key.text.size() - prefix_.size() - meta_suffix.size()));
        } while (cursor != "0");
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());  // SCAN may return a key twice
        return ids;
    }

    std::vector<AdminJob> read_jobs(const std::vector<std::string>& ids) {
        for (const auto& id : ids)
            connection_.append({"HMGET", redis::job_meta(prefix_, id), "fingerprint", "definition", "ranges"});
        const auto metas = connection_.read_replies(ids.size());
        std::vector<AdminJob> jobs;
        std::size_t fetched = 0;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const auto& meta = metas[i].elements;
            if (meta.size() != 3 || meta[0].is_nil()) continue;
            AdminJob job{.id = ids[i], .fingerprint = meta[0].text, .description = meta[1].text, .ranges = {}};
            job.ranges.resize(number_or_zero(meta[2]));
            for (std::size_t number = 0; number < job.ranges.size(); ++number)
                connection_.append({"HMGET", redis::job_range(prefix_, job.id, number), "status", "owner", "lo", "hi",
                                    "last_key", "rows_written", "estimated_rows", "lease_until", "written_at"});
            fetched += job.ranges.size();
            jobs.push_back(std::move(job));
        }
        const auto ranges = connection_.read_replies(fetched);
        const std::int64_t now = server_ms(connection_);
        const auto clients = live_clients(connection_);
        std::size_t next = 0;
        for (AdminJob& job : jobs)
            for (std::size_t number = 0; number < job.ranges.size(); ++number)
                job.ranges[number] = admin_range(number, ranges.at(next++).elements, now, clients);
        return jobs;
    }

    static AdminRange admin_range(std::size_t number, const std::vector<redis::Reply>& fields, std::int64_t now,
                                  const std::map<std::string, std::string>& clients) {
        AdminRange range;
        range.number = static_cast<std::uint32_t>(number);
        if (fields.size() != 9 || fields[0].is_nil()) return range;
        range.done = fields[0].text == "done";
        if (!range.done && fields[1].text != "0") range.owner = fields[1].text;
        range.lo = fields[2].text;
        range.hi = fields[3].text;
        range.checkpoint = fields[4].text;
        range.rows_written = number_or_zero(fields[5]);
        range.estimated_rows = number_or_zero(fields[6]);
        if (!range.owner.empty()) {
            const auto client = clients.find(range.owner);
            if (client != clients.end()) range.owner_address = client->second;
            range.lease_live = client != clients.end() && static_cast<std::int64_t>(number_or_zero(fields[7])) > now;
        }
        if (!fields[8].is_nil()) range.written_at_ms = static_cast<std::int64_t>(number_or_zero(fields[8]));
        return range;
    }

    // nullopt: the job changed between the look and the EXEC (look again).
    std::optional<RemoveResult> remove_once(const std::string& job_id, RemoveRule rule) {
        const std::string meta = redis::job_meta(prefix_, job_id);
        connection_.command({"WATCH", meta});
        const auto count = connection_.command({"HGET", meta, "ranges"});
        std::vector<std::string> keys{meta};
        for (std::size_t number = 0; number < number_or_zero(count); ++number)
            keys.push_back(redis::job_range(prefix_, job_id, number));
        Argv watch{"WATCH"};
        watch.insert(watch.end(), keys.begin() + 1, keys.end());
        if (keys.size() > 1) connection_.command(watch);
        auto jobs = read_jobs({job_id});
        if (jobs.empty()) {
            connection_.command({"UNWATCH"});
            return RemoveResult{RemoveOutcome::missing, {}};
        }
        RemoveResult result{removal_verdict(jobs.front(), rule), std::move(jobs.front())};
        if (result.outcome != RemoveOutcome::removed) {
            connection_.command({"UNWATCH"});
            return result;
        }
        Argv del{"DEL"};
        del.insert(del.end(), keys.begin(), keys.end());
        connection_.append({"MULTI"});
        connection_.append(del);
        connection_.append({"EXEC"});
        if (connection_.read_replies(3).at(2).is_nil()) return std::nullopt;
        return result;
    }

    redis::Connection connection_;
    std::string prefix_;
    std::string shown_;
};

}  // namespace

std::unique_ptr<JobAdmin> open_redis_job_admin(const RedisOptions& connection, std::string state_prefix) {
    return std::make_unique<RedisJobAdmin>(connection, std::move(state_prefix));
}

}  // namespace rowpump

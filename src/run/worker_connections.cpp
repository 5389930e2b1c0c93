#include "run/worker_connections.hpp"

#include <optional>

#include "mysql/connection.hpp"
#include "partition/midpoint.hpp"

namespace rowpump {

namespace {

class MySqlRangeReader final : public RangeReader {
public:
    explicit MySqlRangeReader(PageReader reader) : reader_(std::move(reader)) {}

    std::optional<Page> next_page() override { return reader_.next_page(); }
    void recycle(Page page) override { reader_.recycle(std::move(page)); }
    const std::optional<KeyValue>& position() const override { return reader_.position(); }
    const KeyRange& range() const override { return reader_.range(); }
    void set_upper_bound(std::optional<KeyValue> hi) override { reader_.set_upper_bound(std::move(hi)); }
    void keep_alive() override { reader_.keep_alive(); }

private:
    PageReader reader_;
};

// A worker's session: opened for its first range and kept for the rest, or --consistent-snapshot's,
// taken as the worker starts (a job id is refused with it, so nothing is read on from a checkpoint there).
class MySqlWorkerReaders final : public WorkerReaders {
public:
    MySqlWorkerReaders(const MySqlOptions& mysql, std::shared_ptr<const ReadPlan> plan, SnapshotSessions* snapshot)
        : mysql_(mysql), plan_(std::move(plan)), session_(snapshot ? snapshot->take() : nullptr) {}

    std::unique_ptr<RangeReader> open(const KeyRange& range, const std::optional<KeyValue>& resume_after) override {
        if (!session_) session_ = open_reader_session(mysql_, *plan_);
        return range_reader(PageReader(session_, plan_, range, resume_after));
    }

private:
    const MySqlOptions& mysql_;
    std::shared_ptr<const ReadPlan> plan_;
    std::shared_ptr<ReaderSession> session_;
};

class MySqlKeyOrder final : public KeyOrder {
public:
    MySqlKeyOrder(const MySqlOptions& mysql, std::shared_ptr<const ReadPlan> plan)
        : mysql_(mysql), plan_(std::move(plan)) {}

    std::optional<KeyValue> midpoint(const std::optional<KeyValue>& after, const std::optional<KeyValue>& before,
                                     std::uint64_t remaining_rows_estimate, bool after_inclusive) override {
        return find_midpoint(control(), *plan_, after, before, remaining_rows_estimate, after_inclusive);
    }
    bool before(const KeyValue& position, const KeyValue& bound) override {
        return key_before(control(), *plan_, position, bound);
    }

private:
    mysql::Connection& control() {
        if (!control_) control_.emplace(mysql_);
        return *control_;
    }

    const MySqlOptions& mysql_;
    std::shared_ptr<const ReadPlan> plan_;
    std::optional<mysql::Connection> control_;  // opened at the first question: most workers never steal
};

}  // namespace

std::unique_ptr<RangeReader> range_reader(PageReader reader) {
    return std::make_unique<MySqlRangeReader>(std::move(reader));
}

WorkerConnections mysql_worker_connections(const JobSpec& spec, std::shared_ptr<const ReadPlan> plan,
                                           SnapshotSessions* snapshot) {
    WorkerConnections connections;
    connections.readers = [&spec, plan, snapshot] {
        return std::make_unique<MySqlWorkerReaders>(spec.mysql, plan, snapshot);
    };
    connections.keys = [&spec, plan] { return std::make_unique<MySqlKeyOrder>(spec.mysql, plan); };
    connections.sink = [&spec] { return make_sink(spec.sink); };
    return connections;
}

}  // namespace rowpump

// Connection's second driver, MariaDB Connector/C, taken by the sessions that write queue rows. execute()
// binds its values in a prepared statement, so payloads travel as they are (escaped into the text they
// would take up to twice their size, and the queue's size limits count them raw); execute_bulk() binds an
// array per placeholder to the same kind of statement. query() writes its values into the statement as
// escaped literals (inline_params.hpp), as the streaming reader does, and reads the text protocol's cells.
#include <mysql.h>

#include <unordered_map>

#include "mysql/client_handle.hpp"
#include "mysql/driver_session.hpp"
#include "mysql/inline_params.hpp"

namespace rowpump::mysql {

namespace {

struct FreeResult {
    void operator()(MYSQL_RES* result) const noexcept { mysql_free_result(result); }
};
using Result = std::unique_ptr<MYSQL_RES, FreeResult>;

struct CloseStatement {
    void operator()(MYSQL_STMT* statement) const noexcept { mysql_stmt_close(statement); }
};
using Statement = std::unique_ptr<MYSQL_STMT, CloseStatement>;

// MariaDB's bulk execution, which MySQL servers do not offer (they send no extended capabilities).
bool server_offers_bulk(MYSQL* handle) {
    unsigned long capabilities = 0;
    unsigned long extended = 0;
    mariadb_get_infov(handle, MARIADB_CONNECTION_SERVER_CAPABILITIES, &capabilities);
    mariadb_get_infov(handle, MARIADB_CONNECTION_EXTENDED_SERVER_CAPABILITIES, &extended);
    return (capabilities & CLIENT_MYSQL) == 0 && (extended & (MARIADB_CLIENT_STMT_BULK_OPERATIONS >> 32)) != 0;
}

class ClientSession final : public DriverSession {
public:
    explicit ClientSession(const MySqlOptions& options)
        : options_(options), handle_(open_client_handle(options, false)), bulk_(server_offers_bulk(handle_.get())) {
        flavor = ServerFlavor::parse(server_version(handle_.get()));
    }

    Rows query(const std::string& sql, const std::vector<Param>& params) override {
        run(sql, params);
        Result result(mysql_store_result(handle_.get()));
        if (!result) {
            if (mysql_errno(handle_.get()) != 0) throw_client_error(handle_.get(), sql, options_);
            return Rows();  // not a SELECT
        }
        const unsigned width = mysql_num_fields(result.get());
        const MYSQL_FIELD* fields = mysql_fetch_fields(result.get());
        std::vector<std::string> labels;
        labels.reserve(width);
        for (unsigned column = 0; column < width; ++column) labels.emplace_back(fields[column].name);
        std::vector<Rows::Row> rows;
        rows.reserve(mysql_num_rows(result.get()));
        while (MYSQL_ROW row = mysql_fetch_row(result.get())) {
            const unsigned long* lengths = mysql_fetch_lengths(result.get());
            Rows::Row& cells = rows.emplace_back();
            cells.reserve(width);
            for (unsigned column = 0; column < width; ++column) {
                if (row[column] == nullptr) cells.emplace_back(std::nullopt);
                else cells.emplace_back(std::string(row[column], lengths[column]));
            }
        }
        return Rows(std::move(labels), std::move(rows));
    }

    std::uint64_t execute(const std::string& sql, const std::vector<Param>& params) override {
        if (params.empty()) {
            execute_text(sql);
            return mysql_affected_rows(handle_.get());
        }
        MYSQL_STMT* statement = prepare(sql);
        binds_.assign(params.size(), MYSQL_BIND{});
        param_lengths_.resize(params.size());
        for (std::size_t i = 0; i < params.size(); ++i) {
            MYSQL_BIND& bind = binds_[i];
            if (const auto* number = std::get_if<std::int64_t>(&params[i])) {
                bind.buffer_type = MYSQL_TYPE_LONGLONG;
                bind.buffer = const_cast<std::int64_t*>(number);
            } else if (const auto* unsigned_number = std::get_if<std::uint64_t>(&params[i])) {
                bind.buffer_type = MYSQL_TYPE_LONGLONG;
                bind.buffer = const_cast<std::uint64_t*>(unsigned_number);
                bind.is_unsigned = 1;
            } else {
                const auto& text = std::get<std::string>(params[i]);
                param_lengths_[i] = static_cast<unsigned long>(text.size());
                bind.buffer_type = MYSQL_TYPE_STRING;
                bind.buffer = const_cast<char*>(text.data());
                bind.buffer_length = param_lengths_[i];
                bind.length = &param_lengths_[i];
            }
        }
        // Once per row, not in bulk: the same statement may have run in bulk before (a refused chunk).
        unsigned int no_array = 0;
        if (mysql_stmt_attr_set(statement, STMT_ATTR_ARRAY_SIZE, &no_array) != 0 ||
            mysql_stmt_bind_param(statement, binds_.data()) != 0 || mysql_stmt_execute(statement) != 0)
            throw_statement_error(statement, sql);
        return mysql_stmt_affected_rows(statement);
    }

    void execute_text(const std::string& sql) override {
        run_text(handle_.get(), sql, options_);
        Result unread(mysql_store_result(handle_.get()));
        if (mysql_errno(handle_.get()) != 0) throw_client_error(handle_.get(), sql, options_);
    }

    bool alive() noexcept override { return mysql_ping(handle_.get()) == 0; }

    bool supports_bulk() const override { return bulk_; }

    std::uint64_t execute_bulk(const std::string& sql, const std::vector<BulkColumn>& columns) override {
        MYSQL_STMT* statement = prepare(sql);
        unsigned int rows = columns.empty() ? 0 : static_cast<unsigned int>(std::visit(
                                                     [](const auto& values) { return values.size(); }, columns[0]));
        binds_.assign(columns.size(), MYSQL_BIND{});
        texts_.resize(columns.size());
        lengths_.resize(columns.size());
        for (std::size_t c = 0; c < columns.size(); ++c) {
            MYSQL_BIND& bind = binds_[c];
            if (const auto* numbers = std::get_if<std::vector<std::int64_t>>(&columns[c])) {
                if (numbers->size() != rows) throw Error("bug: bulk columns of different lengths for " + sql);
                bind.buffer_type = MYSQL_TYPE_LONGLONG;
                bind.buffer = const_cast<std::int64_t*>(numbers->data());
                continue;
            }
            const auto& strings = std::get<std::vector<std::string_view>>(columns[c]);
            if (strings.size() != rows) throw Error("bug: bulk columns of different lengths for " + sql);
            // Column-wise binding of text: an array of pointers and one of lengths.
            texts_[c].resize(rows);
            lengths_[c].resize(rows);
            for (unsigned row = 0; row < rows; ++row) {
                texts_[c][row] = const_cast<char*>(strings[row].data());
                lengths_[c][row] = static_cast<unsigned long>(strings[row].size());
            }
            bind.buffer_type = MYSQL_TYPE_STRING;
            bind.buffer = texts_[c].data();
            bind.length = lengths_[c].data();
        }
        if (mysql_stmt_attr_set(statement, STMT_ATTR_ARRAY_SIZE, &rows) != 0 ||
            mysql_stmt_bind_param(statement, binds_.data()) != 0 || mysql_stmt_execute(statement) != 0)
            throw_statement_error(statement, sql);
        return mysql_stmt_affected_rows(statement);
    }

private:
    void run(const std::string& sql, const std::vector<Param>& params) {
        MYSQL* handle = handle_.get();
        const auto quote = [handle](std::string_view value) { return quote_string(handle, value); };
        run_text(handle, inline_params(sql, params, quote), options_);
    }

    MYSQL_STMT* prepare(const std::string& sql) {
        auto found = statements_.find(sql);
        if (found != statements_.end()) return found->second.get();
        Statement statement(mysql_stmt_init(handle_.get()));
        if (!statement) throw std::bad_alloc();
        if (mysql_stmt_prepare(statement.get(), sql.data(), static_cast<unsigned long>(sql.size())) != 0)
            throw_statement_error(statement.get(), sql);
        return statements_.emplace(sql, std::move(statement)).first->second.get();
    }

    [[noreturn]] void throw_statement_error(MYSQL_STMT* statement, const std::string& sql) {
        throw_server_error(static_cast<int>(mysql_stmt_errno(statement)), mysql_stmt_sqlstate(statement),
                           mysql_stmt_error(statement), sql, options_);
    }

    MySqlOptions options_;  // a copy: the Connection that owns this session may move
    ClientHandle handle_;
    bool bulk_;
    std::unordered_map<std::string, Statement> statements_;  // after the handle: closed before it
    // Kept between calls, so that a steady stream of batches binds without allocating.
    std::vector<MYSQL_BIND> binds_;
    std::vector<unsigned long> param_lengths_;
    std::vector<std::vector<char*>> texts_;
    std::vector<std::vector<unsigned long>> lengths_;
};

}  // namespace

std::unique_ptr<DriverSession> open_client_session(const MySqlOptions& options) {
    return std::make_unique<ClientSession>(options);
}

}  // namespace rowpump::mysql

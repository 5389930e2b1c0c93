#include "mysql/consistent_snapshot.hpp"

#include <chrono>

#include "config/option_error.hpp"
#include "log.hpp"
#include "mysql/connection.hpp"
#include "mysql/error_codes.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

constexpr int database_access_denied = 1044;  // what a missing LOCK TABLES privilege gets
constexpr int table_access_denied = 1142;

bool names_lock_wait_timeout(const MySqlOptions& mysql) {
    for (const auto& [name, value] : mysql.session_variables)
        if (name == "lock_wait_timeout") return true;
    return false;
}

}  // namespace

void start_snapshots_together(const MySqlOptions& mysql, const std::string& quoted_table,
                              const std::vector<StreamConnection*>& readers) {
    Connection lock(mysql);
    if (!names_lock_wait_timeout(mysql))
        lock.execute_text("SET SESSION lock_wait_timeout = " + std::to_string(snapshot_lock_wait_seconds));
    const auto started = std::chrono::steady_clock::now();
    try {
        lock.execute_text("LOCK TABLES " + quoted_table + " READ");
    } catch (const DbError& error) {
        if (error.code() == codes::lock_wait_timeout)
            throw config::OptionFailure(
                {config::OptionId::consistent_snapshot,
                 " could not lock " + quoted_table +
                     " for its snapshot within lock_wait_timeout: a transaction that wrote to it is still open "
                     "(SHOW PROCESSLIST, information_schema.INNODB_TRX). Try again when it has ended, or give a "
                     "longer wait with ",
                 config::OptionId::set_vars, " lock_wait_timeout=N, during which writes to the table wait"});
        if (error.code() == database_access_denied || error.code() == table_access_denied)
            throw config::OptionError({config::OptionId::consistent_snapshot,
                                       " needs the LOCK TABLES privilege on " + quoted_table + " for " +
                                           mysql.redacted() + " (the server said: " + error.what() +
                                           "): GRANT LOCK TABLES ON the schema, or run without ",
                                       config::OptionId::consistent_snapshot});
        throw;
    }
    // Were this to fail, closing `lock` (its destructor) releases the table all the same.
    for (StreamConnection* reader : readers) reader->start_consistent_snapshot();
    lock.execute_text("UNLOCK TABLES");
    log().info("consistent snapshot: {} readers started on one snapshot of {}; the table was locked, or the lock awaited, for {} ms",
               readers.size(), quoted_table,
               std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                   .count());
}

}  // namespace rowpump::mysql

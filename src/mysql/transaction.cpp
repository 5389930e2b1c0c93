#include "mysql/transaction.hpp"

namespace rowpump::mysql {

Transaction::Transaction(Connection& connection) : connection_(connection) {
    connection_.execute_text("START TRANSACTION");
}

Transaction::~Transaction() { rollback(); }

void Transaction::commit() {
    try {
        connection_.execute_text("COMMIT");
        open_ = false;
    } catch (const ConnectionLost& lost) {
        open_ = false;  // the server ended it, one way or the other
        throw CommitInDoubt(lost);
    }
}

void Transaction::rollback() noexcept {
    if (!open_) return;
    open_ = false;
    try {
        connection_.execute_text("ROLLBACK");
    } catch (...) {
    }
}

}  // namespace rowpump::mysql

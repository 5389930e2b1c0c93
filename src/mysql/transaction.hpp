#pragma once
// The one way rowpump writes a transaction on a control-plane connection, as libpqxx's `transaction`:
//
//     mysql::Transaction transaction(connection);  // START TRANSACTION
//     ... statements ...
//     transaction.commit();                        // or leave the scope: rolled back
//
// The rollback policy, the same for every caller: a transaction that is not committed when its guard
// goes (an exception, an early return) is rolled back at once, and whatever the ROLLBACK itself throws is
// swallowed. Why always, and quietly: a lock wait timeout rolls back only its statement and leaves the
// transaction open with every lock it took; a deadlock has rolled it back already (a second ROLLBACK is
// harmless); on a lost connection the server rolled it back when the session ended, and the client
// library fails the ROLLBACK at once without waiting on the network. The error that matters is the one
// that ended the transaction, never the ROLLBACK's.
//
// COMMIT has a third outcome besides done and refused: when the connection is lost while COMMIT is on its
// way, the server may have committed before it went. commit() then throws CommitInDoubt (a ConnectionLost,
// so a caller whose retry is harmless either way retries as after any lost connection); a caller that must
// know looks at what the transaction wrote, on a new session (the job ledger re-reads its checkpoint).
//
// Sessions that stay outside this guard, and why: the consistent-snapshot readers
// (StreamConnection::start_consistent_snapshot) hold a read-only snapshot for the session's whole life on
// the streaming driver and never commit.
#include "mysql/connection.hpp"

namespace rowpump::mysql {

class Transaction {
public:
    // Starts the transaction (START TRANSACTION); throws what the connection throws.
    explicit Transaction(Connection& connection);
    // Rolls back unless commit() or rollback() ended the transaction.
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    // Commits. Throws CommitInDoubt when the connection is lost during COMMIT, other errors as they come
    // (the transaction is then rolled back, as above). Either way the guard is done with it.
    void commit();
    // Rolls back now, by the policy above (a refused fence: before reading on, so no lock is held).
    void rollback() noexcept;

private:
    Connection& connection_;
    bool open_ = true;
};

}  // namespace rowpump::mysql

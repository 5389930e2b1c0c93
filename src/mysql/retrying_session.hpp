#pragma once
// retrying() for Connection and StreamConnection alike: each derives from RetryingSession<Itself> and
// has its own options() and recover_from (a reconnect for one, a new stream session for the other).
#include <utility>

#include "retry.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {

template <class Session>
class RetryingSession {
public:
    // Calls `action`; when it fails with a transient error (lost connection, deadlock), waits with backoff,
    // calls the session's recover_from (which reconnects if needed) and calls it again, until
    // options().retry_budget has passed since the first failure. Then the last error is thrown as a final
    // one (RetryBudgetSpent, not transient) that says how long it was retried. `action` must be safe to
    // repeat.
    // Reconnects spend the same deadline (recover_session), and the final error is not retried by any outer
    // loop, so nothing nests: the worst-case wait is the budget plus the one attempt that is running when
    // it runs out, at most a statement's read or write timeout or a reconnect's connect timeout (with the
    // defaults 60 s + 30 s).
    template <class Action>
    auto retrying(Action&& action) -> decltype(action()) {
        auto& session = static_cast<Session&>(*this);
        return retry_transient(session.options().retry_budget, std::forward<Action>(action),
                               [&session](const Error& error, int attempt, const RetryDeadline& deadline) {
                                   session.recover_from(error, attempt, deadline);
                               });
    }
};

}  // namespace rowpump::mysql

#pragma once
// The one table of transient MySQL and MariaDB error codes, as SOCI keeps one per backend: the server's
// (1xxx) and the client library's (2xxx), whichever driver reports them. Which errors are retried, and
// which mean the session is gone, is decided here and nowhere else (Redis's: redis/connection.cpp).
namespace rowpump::mysql::codes {

// The session is gone: the statement may or may not have run (ConnectionLost).
inline constexpr int cannot_connect_socket = 2002;  // CR_CONNECTION_ERROR
inline constexpr int cannot_connect_tcp = 2003;     // CR_CONN_HOST_ERROR
inline constexpr int unknown_host = 2005;           // CR_UNKNOWN_HOST
inline constexpr int server_gone = 2006;            // CR_SERVER_GONE_ERROR
inline constexpr int lost_during_query = 2013;      // CR_SERVER_LOST (also a read timeout)
inline constexpr int lost_extended = 2055;          // CR_SERVER_LOST_EXTENDED
inline constexpr int connection_killed = 1927;      // ER_CONNECTION_KILLED (MariaDB)
inline constexpr int server_shutdown = 1053;        // ER_SERVER_SHUTDOWN
// MySQL 8.0.24 and later say this before they close a session idle beyond wait_timeout, which a worker's
// reader session can be while the worker waits for a range to lease or split.
inline constexpr int idle_too_long = 4031;  // ER_CLIENT_INTERACTION_TIMEOUT
// A TLS session that breaks once established (a read that timed out on a frozen server, a reset) is
// reported as this rather than as 2013. At connect it is a failed handshake instead, which never gets
// here: explain_tls_failure (tls.hpp) turns it into AccessDenied first.
inline constexpr int tls_error = 2026;  // CR_SSL_CONNECTION_ERROR

// The statement failed but the session lives; the same statement may succeed when tried again.
inline constexpr int lock_wait_timeout = 1205;  // only the statement was rolled back
inline constexpr int deadlock = 1213;           // the whole transaction was rolled back
// KILL QUERY: the statement stopped, the session lives. Not transient for every statement (an operator
// may mean it); the streaming reader retries it (stream_connection.cpp).
inline constexpr int query_interrupted = 1317;  // ER_QUERY_INTERRUPTED

constexpr bool is_connection_loss(int code) {
    switch (code) {
        case cannot_connect_socket:
        case cannot_connect_tcp:
        case unknown_host:
        case server_gone:
        case lost_during_query:
        case lost_extended:
        case connection_killed:
        case server_shutdown:
        case idle_too_long:
        case tls_error:
            return true;
        default:
            return false;
    }
}

// Retrying the same operation may succeed: a lost session (on a new one) or a lock conflict.
constexpr bool is_transient(int code) {
    return is_connection_loss(code) || code == lock_wait_timeout || code == deadlock;
}

}  // namespace rowpump::mysql::codes

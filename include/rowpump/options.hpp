#pragma once
// Connection settings. Each can be written as a URL; passwords may come from the environment or a file
// so they never have to appear on a command line. Nothing here opens a connection.
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rowpump/export.hpp"

namespace ROWPUMP_EXPORT rowpump {

// TLS to MySQL, as the URL's ssl-mode names it (the modes of MySQL's own clients). docs/tls-and-session.md.
enum class SslMode {
    disabled,         // plain TCP (the default when the URL names no ssl-* option)
    preferred,        // TLS when the server offers it, else plain; nothing is verified
    required,         // TLS or no connection; the server's certificate is not verified
    verify_ca,        // TLS, and the certificate must chain to ssl-ca
    verify_identity,  // as verify_ca, and it must name the URL's host (the default when ssl-ca is given)
};

// How long rowpump waits for a server, the same for every connection to MySQL and to Redis: the CLI's
// --read-timeout, --write-timeout and --retry-budget fill one of these for the source, the sink, the job
// store and the queue commands alike.
struct ServerTimeouts {
    // How long one read or write on the socket may wait for a server that stopped answering (frozen,
    // half-open TCP). 0 waits forever, which is how a SIGSTOPped server used to hang a run for good. The
    // longest legitimate wait is one statement, which statement_timeout bounds on a MySQL server; a
    // blocking pop on Redis waits its own block time on top of it.
    std::chrono::seconds read_timeout{30};
    std::chrono::seconds write_timeout{30};
    // How long transient failures (lost connection, deadlock, restart, a read or write that timed out)
    // are retried, from the first one, before the error is final. A frozen server therefore ends the work
    // after about read_timeout + retry_budget (plus one more attempt's timeout).
    std::chrono::seconds retry_budget{60};
};

struct MySqlOptions : ServerTimeouts {
    std::string host = "127.0.0.1";
    unsigned port = 3306;
    std::string socket;  // non-empty: connect through this unix socket instead of TCP
    std::string user;
    std::string password;
    std::string database;
    std::chrono::seconds connect_timeout{10};
    // read_timeout, write_timeout, retry_budget: ServerTimeouts.
    // A server-side limit on each statement of the connection (MariaDB max_statement_time, MySQL
    // max_execution_time); 0: none. The page reader sets it from ReadSpec::page_timeout.
    std::chrono::seconds statement_timeout{0};
    std::map<std::string, std::string> extra;  // other ?key=value options, kept for display
    SslMode ssl_mode = SslMode::disabled;
    std::string ssl_ca;    // PEM file of the CA(s) the server's certificate must chain to
    std::string ssl_cert;  // a client certificate and its key, for accounts that REQUIRE X509
    std::string ssl_key;
    // SET SESSION name = value on every connection, after rowpump's own settings (time_zone = '+00:00',
    // the statement limit), in this order. Names must be identifiers; check_session_variable() says
    // what a value may be. A server that does not know a name or refuses a value fails the first
    // connection with a UsageError, before anything is read or written.
    std::vector<std::pair<std::string, std::string>> session_variables;

    // mysql://user:pass@host:port/db?connect_timeout=5
    // mysql://user:pass@localhost/db?socket=/path/to/mysqld.sock   (unix socket form)
    // mysql://user:pass@db.example.com/db?ssl-mode=VERIFY_IDENTITY&ssl-ca=/etc/ssl/db-ca.pem
    // Percent-escapes are decoded in the user, password and database. Throws UsageError.
    static MySqlOptions from_url(const std::string& url);

    // The URL in ROWPUMP_MYSQL_URL. When the URL has no password, ROWPUMP_MYSQL_PASSWORD or the file
    // named by ROWPUMP_MYSQL_PASSWORD_FILE supplies it. Throws UsageError when the variable is unset.
    static MySqlOptions from_env();

    // Fills an empty password from ROWPUMP_MYSQL_PASSWORD / ROWPUMP_MYSQL_PASSWORD_FILE.
    void password_from_env();

    // The URL with the password replaced by "***": safe for logs, errors and summaries.
    std::string redacted() const;
};

// Parses --set-vars / YAML set_vars text, "name=value,name=value", and checks each pair as
// check_session_variable() does. Throws UsageError naming `where` (the flag or field) on bad input.
std::vector<std::pair<std::string, std::string>> parse_session_variables(const std::string& text,
                                                                         const std::string& where);
// A name is an identifier ([A-Za-z_][A-Za-z0-9_]*); a value is a number (1, -2, 0.5), or a word of
// letters, digits and _ . : + - / (ON, READ-COMMITTED, +00:00), which is sent as a quoted string.
// Nothing else can reach the SQL. Throws UsageError naming `where`.
void check_session_variable(const std::string& name, const std::string& value, const std::string& where);

// read_timeout, write_timeout and retry_budget (ServerTimeouts) bound every command, as for MySQL.
struct RedisOptions : ServerTimeouts {
    std::string host = "127.0.0.1";
    unsigned port = 6379;
    std::string socket;  // non-empty: unix socket
    std::string user;    // empty: the default user
    std::string password;
    int db = 0;
    std::chrono::milliseconds connect_timeout{5000};
    // A stop request (the CLI's SIGINT/SIGTERM flag, JobControl::stop): once it is true, a command that waits for
    // the server gives up within about a second (a blocking pop: a second after its block time), and no failed
    // command is retried; both throw Interrupted. A healthy server's reply is still read: it comes before that.
    const std::atomic<bool>* stop = nullptr;
    // rediss://: TLS. ssl_mode is verify_identity (the certificate chains to ssl_ca and names the host, the
    // default), verify_ca (it chains to ssl_ca) or required (nothing is verified). An empty ssl_ca: the
    // system's CAs. ssl_cert and ssl_key: a client certificate, for servers that ask for one.
    bool tls = false;
    SslMode ssl_mode = SslMode::verify_identity;
    std::string ssl_ca;
    std::string ssl_cert;
    std::string ssl_key;
    // redis-sentinel://: the sentinels to ask, in order, for the address of the master named master_name;
    // host and port are then unused. Every connection asks them again, so a reconnect follows a failover.
    std::vector<std::pair<std::string, unsigned>> sentinels;
    std::string master_name;

    // redis://[user:pass@]host:port/db  or  redis://[:pass@]localhost/db?socket=/path/redis.sock
    // redis+unix://[user:pass@]/path/redis.sock?db=N
    // rediss://[user:pass@]host:port/db?ssl-ca=PATH&ssl-cert=PATH&ssl-key=PATH&ssl-mode=VERIFY_IDENTITY
    // redis-sentinel://[user:pass@]host:port[,host:port...]/MASTER_NAME/db
    static RedisOptions from_url(const std::string& url);
    // Fills an empty password from ROWPUMP_REDIS_PASSWORD / ROWPUMP_REDIS_PASSWORD_FILE.
    void password_from_env();
    std::string redacted() const;
};

// Replaces the password of any scheme://user:pass@... URL with "***"; other text is returned as is.
std::string redact_url(const std::string& text);

}  // namespace rowpump

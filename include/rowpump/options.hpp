#pragma once
// Connection settings. Each can be written as a URL; passwords may come from the environment or a file
// so they never have to appear on a command line. Nothing here opens a connection.
#include <chrono>
#include <map>
#include <string>

namespace rowpump {

struct MySqlOptions {
    std::string host = "127.0.0.1";
    unsigned port = 3306;
    std::string socket;  // non-empty: connect through this unix socket instead of TCP
    std::string user;
    std::string password;
    std::string database;
    std::chrono::seconds connect_timeout{10};
    // How long one read or write on the socket may wait for a server that stopped answering (frozen,
    // half-open TCP). 0 waits forever, which is how a SIGSTOPped server used to hang a run for good. The
    // longest legitimate wait is one statement, which statement_timeout bounds on the server.
    std::chrono::seconds read_timeout{30};
    std::chrono::seconds write_timeout{30};
    // A server-side limit on each statement of the connection (MariaDB max_statement_time, MySQL
    // max_execution_time); 0: none. The page reader sets it from ReadSpec::page_timeout.
    std::chrono::seconds statement_timeout{0};
    // How long transient failures (lost connection, deadlock, restart) are retried, from the first one,
    // before the error is final.
    std::chrono::seconds retry_budget{60};
    std::map<std::string, std::string> extra;  // other ?key=value options, kept for display

    // mysql://user:pass@host:port/db?connect_timeout=5
    // mysql://user:pass@localhost/db?socket=/path/to/mysqld.sock   (unix socket form)
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

struct RedisOptions {
    std::string host = "127.0.0.1";
    unsigned port = 6379;
    std::string socket;  // non-empty: unix socket
    std::string user;    // empty: the default user
    std::string password;
    int db = 0;
    std::chrono::milliseconds connect_timeout{5000};

    // redis://[user:pass@]host:port/db  or  redis://[:pass@]localhost/db?socket=/path/redis.sock
    static RedisOptions from_url(const std::string& url);
    // Fills an empty password from ROWPUMP_REDIS_PASSWORD / ROWPUMP_REDIS_PASSWORD_FILE.
    void password_from_env();
    std::string redacted() const;
};

// Replaces the password of any scheme://user:pass@... URL with "***"; other text is returned as is.
std::string redact_url(const std::string& text);

}  // namespace rowpump

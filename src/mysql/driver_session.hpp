#pragma once
// What Connection asks of the driver beneath it: one open session, and the statements run on it. Two
// drivers implement it, each in its own file: Connector/C++ (cppconn_session.cpp), the default for the
// control plane, and MariaDB Connector/C (client_session.cpp), for the sessions that write queue rows,
// because only it offers array binding (Connector/C++ keeps its C handle to itself). Each opens its session
// as Connection's options say and refuses a plain one when TLS is required (throw_tls_not_offered);
// Connection does the rest for both: session settings, retries and reconnects. Each implementation throws
// rowpump's own errors (throw_server_error), never its driver's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "mysql/rows.hpp"
#include "mysql/server_flavor.hpp"

namespace rowpump::mysql {

class DriverSession {
public:
    virtual ~DriverSession() = default;

    virtual Rows query(const std::string& sql, const std::vector<Param>& params) = 0;
    virtual std::uint64_t execute(const std::string& sql, const std::vector<Param>& params) = 0;
    virtual void execute_text(const std::string& sql) = 0;
    // True when the server answers a ping; never throws.
    virtual bool alive() noexcept = 0;
    virtual bool supports_bulk() const { return false; }
    virtual std::uint64_t execute_bulk(const std::string& sql, const std::vector<BulkColumn>& columns);

    std::optional<std::uint64_t> id;  // CONNECTION_ID(), once asked
    ServerFlavor flavor;              // from the handshake's version string, set on connecting
};

// Each connects at once and throws as Connection's constructor does.
std::unique_ptr<DriverSession> open_cppconn_session(const MySqlOptions& options);
std::unique_ptr<DriverSession> open_client_session(const MySqlOptions& options);

}  // namespace rowpump::mysql

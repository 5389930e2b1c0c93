#pragma once
// How every Redis page writer sends a page: its commands pipelined, their replies read whenever a few MB
// are buffered, so the client's copy of a page stays bounded. Fenced, the page sits in MULTI/EXEC with its
// checkpoint's move, and every reply waits for the EXEC: an error read midway would leave it open.
#include <cstddef>
#include <span>
#include <string_view>

#include "redis/connection.hpp"

namespace rowpump::redis {

class PagePipeline {
public:
    // Fenced: sends MULTI first.
    PagePipeline(Connection& connection, bool fenced);

    void send(std::span<const std::string_view> command);
    // Unfenced: reads every reply not yet read (an error reply throws, as read_replies does).
    void finish();
    // Fenced: sends `move` (the checkpoint's script) and EXEC, and returns EXEC's reply: nil when a WATCHed
    // key changed, else one element per command queued since MULTI, the move last.
    Reply commit(std::span<const std::string_view> move);

private:
    Connection& connection_;
    bool fenced_;
    std::size_t unread_ = 0;
    std::size_t buffered_ = 0;
};

}  // namespace rowpump::redis

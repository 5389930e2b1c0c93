#pragma once
// The listening side of the test relays (FreezingProxy, the commit cutter): a TCP socket on 127.0.0.1 at a
// port the kernel picks, so that tests running at the same time never collide.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace rowpump::test {

// Listens with `backlog`; returns the socket and sets `port`.
inline int listen_on_loopback(int backlog, unsigned& port) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    const int yes = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
    ::listen(listener, backlog);
    return listener;
}

}  // namespace rowpump::test

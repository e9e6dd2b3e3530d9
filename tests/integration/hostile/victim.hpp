// SPDX-License-Identifier: Apache-2.0
//
// The victims of the hostile-peer tests: real Comch programs over the public API (the test
// support library), built into their own program (`hostile_victim`, victim_main.cpp) because the
// tests link the transport's own objects for the attacker and a process holds one copy of the
// library. Their stderr (SoftComch's WARNING and ERROR lines) goes to a file the test reads.
// The mains are in victim.cpp; the launchers below (launch.cpp) exec the program.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace hostile {

// A server named `name`: echoes every message as "echo:<message>"; when `produce`, it creates a
// producer on a connection whose peer announces a consumer and sends that consumer one payload
// of `payload` bytes (0xab), so an announced consumer is really written into. Runs until SIGTERM,
// then stops and exits 0 (non-zero: a step failed).
struct victim_server_options {
    std::string name;
    std::string log;
    bool produce = true;
    size_t payload = 4096;
};
int victim_server_main(const victim_server_options &o);

// A client process: first a client of `hostile_name` (a hostile server), then, to show it still
// works, one of `honest_name` (a victim server) that exchanges a message.
enum class client_plan {
    refused,    // the hostile handshake must leave the first client IDLE (refused)
    closed,     // the first client connects; the server's attack must end it (IDLE)
    neighbours, // connect, then a consumer on a calloc'd buffer between two canaried neighbours:
                // the hostile server writes every byte of the memory it gets, then one payload
};
struct victim_client_options {
    std::string hostile_name;
    std::string honest_name;
    std::string log;
    client_plan plan = client_plan::refused;
};
int victim_client_main(const victim_client_options &o);

// Bytes of the neighbour plan: the registered buffer, and the payload the hostile server writes.
inline constexpr size_t k_neighbour_len = 5000;
inline constexpr unsigned char k_neighbour_payload = 0x5a;

// An honest client (hostile_victim's `honest` command): connects to server `name`, sends one
// message and checks its echo. With `hold`, it says "connected" on stdout once connected and
// sends only when a byte arrives on stdin, progressing meanwhile.
int honest_client_main(const std::string &name, bool hold);

// Starts a victim in a child (stderr to the options' log); returns its pid.
pid_t spawn_server(const victim_server_options &o);
pid_t spawn_client(const victim_client_options &o);

// An honest client in its own process gets its echo from server `name`: "" when it did, else
// what it printed.
std::string honest_echo(const std::string &name);

// An honest client connected for a while: start() returns once it is connected, finish() has
// it send one message and returns "" when the echo came back (else what went wrong).
class honest_session {
public:
    honest_session() = default;
    honest_session(const honest_session &) = delete;
    honest_session &operator=(const honest_session &) = delete;
    ~honest_session();
    bool start(const std::string &name);
    std::string finish();

private:
    pid_t pid_ = -1;
    int to_child_ = -1;
    int from_child_ = -1;
};

} // namespace hostile

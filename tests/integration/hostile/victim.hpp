// SPDX-License-Identifier: Apache-2.0
//
// The victims of the hostile-peer tests: real Comch programs over the public API (the test
// support library), run in child processes whose stderr (SoftComch's WARNING and ERROR lines)
// goes to a file the test reads. Definitions in victim.cpp.
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

// Starts a victim in a child (stderr to the options' log); returns its pid.
pid_t spawn_server(const victim_server_options &o);
pid_t spawn_client(const victim_client_options &o);

} // namespace hostile

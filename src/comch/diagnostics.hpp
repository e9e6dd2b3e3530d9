// SPDX-License-Identifier: Apache-2.0
//
// Diagnostics: why a connection does not form, said once per start at WARNING (visible at
// DOCA's default SDK log level), from the slow path only (a context's tick, doca_ctx::tick) or
// from a refusal that already logs. README.md, "When the connection never forms", walks through
// them; `softcomch doctor --client` (tools/softcomch/doctor/client.cpp) gives the same
// cross-process view from outside the program.
//
//   client still STARTING after SOFTCOMCH_DIAG_DELAY_MS, finding no server:
//       doca_comch_client::explain_starting (what it waits for, the servers the fabric has, a
//       near name, the same server on another fabric)
//   client whose server accepted but does not answer (not progressing):
//       silent_server_hint, appended to the client's existing warning
//   server or client created on the wrong side's device: wrong_side_hint, appended to the
//       refusal of doca_comch_{server,client}_create (src/capi/comch/comch.cpp)
//   producer send to a consumer id that does not exist on its connection:
//       doca_comch_producer::tick (the ids that do exist, and whether the id is one of ours)
//
// The text builders are pure functions of what was read, so that the unit tests
// (tests/unit/comch/test_diagnostics.cpp) check them without a fabric.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/visibility.hpp"
#include "transport/fabric.hpp"

struct doca_devinfo;

namespace softcomch::comch::diag {

// The servers a client could have meant: the live endpoints of its fabric, and the server `key`
// itself in the other fabrics of the same runtime directory (fabric name, endpoint).
struct fabric_view {
    std::string fabric;
    std::vector<transport::endpoint_info> here;
    std::vector<std::pair<std::string, transport::endpoint_info>> elsewhere;
};
// Reads the fabric directories (the slow path: once per start): the client's whole, the others'
// one endpoint each (its file name is known from `key`: one failed open() per fabric without
// it; about 3 us a fabric, 40 ms on a machine where test runs left 12000 behind). Never throws.
fabric_view look_around(const std::string &fabric, const transport::endpoint_key &key) noexcept;

// "no server named 'x' for host function H on fabric 'f'; servers on this fabric: ...; did you
// mean 'y'? (differs only in case)" for a client `key` that finds nothing to connect to.
std::string missing_server(const transport::endpoint_key &key, const fabric_view &v);

// What to do about a server (`bluefield`, `host_function`, `name`) that accepted a client's
// connection but does not answer: names its process when the fabric has its endpoint. Starts
// with "; " (or is empty, also when the text cannot be allocated).
std::string silent_server_hint(const std::string &bluefield, const std::string &host_function,
                               const std::string &name) noexcept;

// Why `info` cannot hold a Comch server (`server`) or client, and where it should run instead
// (the C API's create calls append it to their refusal).
SOFTCOMCH_API std::string wrong_side_hint(const doca_devinfo &info, bool server);

// A name as a log line shows it: in single quotes, control characters as \xNN.
std::string quoted(const std::string &name);

} // namespace softcomch::comch::diag

// SPDX-License-Identifier: Apache-2.0
//
// A real fabric for the CLI tests: a DPU-side server process (03:00.0, representor of b1:00.0)
// and a host-side client process (b1:00.0), forked and connected over the real transport in the
// test's private fabric, kept connected while the test runs the tool, then made to exchange one
// message (the connection still works after the tool looked at the machine) and stopped. Each
// child also reports the Comch, consumer and producer capability values of its device as it
// reads them through the public API, in the "name=value" form of the capability snapshot.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace sc_cli {

class live_pair {
public:
    // Forks both sides; call in a test whose fabric is private (sc_test::use_private_fabric).
    explicit live_pair(const std::string &server_name);
    ~live_pair();
    live_pair(const live_pair &) = delete;
    live_pair &operator=(const live_pair &) = delete;

    // Both sides connected, within `timeout_ms`.
    bool wait_connected(int timeout_ms = 20000);
    // The client sends one message, the server echoes it, both stop and exit; true if both
    // exited with status 0.
    bool finish();

    // What each side read through the API (after wait_connected): "name=value" flags.
    std::vector<std::string> server_caps, client_caps;
    std::string server_pci = "0000:03:00.0", client_pci = "0000:b1:00.0";

private:
    pid_t server_ = -1, client_ = -1;
    int server_out_ = -1, client_out_ = -1, client_go_ = -1;
    std::string server_buf_, client_buf_;
};

// The capability flags of the device at `pci` as a program reads them (doca_comch_cap_*,
// doca_comch_consumer_cap_*, doca_comch_producer_cap_*), named as in the capability snapshot.
std::vector<std::string> api_caps(const char *pci);

} // namespace sc_cli

// SPDX-License-Identifier: Apache-2.0
//
// Comch server and client wrappers of the fast-path harness (fastpath_harness.hpp) that record
// the consumer events (comch_harness.hpp's server and client plus consumer_events). The events
// can be read from any thread. Definitions in fastpath_sides.cpp.
#pragma once

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "comch_harness.hpp"

namespace sc_test::fp {

struct consumer_event {
    doca_comch_connection *conn;
    uint32_t id;
};

class consumer_events {
public:
    std::vector<consumer_event> news() const;
    std::vector<consumer_event> expired() const;
    size_t news_count() const;
    bool has_new(uint32_t id) const;
    bool has_expired(uint32_t id) const;
    doca_error_t events_rc = DOCA_ERROR_UNKNOWN;

protected:
    void on_new(doca_comch_connection *c, uint32_t id);
    void on_expired(doca_comch_connection *c, uint32_t id);

private:
    mutable std::mutex mu_;
    std::vector<consumer_event> news_, expired_;
};

class fp_server : public server, public consumer_events {
public:
    explicit fp_server(const std::string &name, server_options o = {});
    doca_dev *dev() const;
    bool wait_connection(std::chrono::milliseconds t = 10000ms);

private:
    static fp_server *self(doca_comch_connection *conn);
};

class fp_client : public client, public consumer_events {
public:
    explicit fp_client(const std::string &name, client_options o = {});
    doca_dev *dev() const;

private:
    static fp_client *self(doca_comch_connection *conn);
};

} // namespace sc_test::fp

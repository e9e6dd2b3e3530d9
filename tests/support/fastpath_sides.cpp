// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_sides.hpp.
#include "fastpath_sides.hpp"

#include <algorithm>

namespace sc_test::fp {

// ---- consumer_events ----

std::vector<consumer_event> consumer_events::news() const
{
    std::lock_guard<std::mutex> g(mu_);
    return news_;
}

std::vector<consumer_event> consumer_events::expired() const
{
    std::lock_guard<std::mutex> g(mu_);
    return expired_;
}

size_t consumer_events::news_count() const
{
    std::lock_guard<std::mutex> g(mu_);
    return news_.size();
}

bool consumer_events::has_new(uint32_t id) const
{
    std::lock_guard<std::mutex> g(mu_);
    return std::any_of(news_.begin(), news_.end(),
                       [id](const consumer_event &e) { return e.id == id; });
}

bool consumer_events::has_expired(uint32_t id) const
{
    std::lock_guard<std::mutex> g(mu_);
    return std::any_of(expired_.begin(), expired_.end(),
                       [id](const consumer_event &e) { return e.id == id; });
}

void consumer_events::on_new(doca_comch_connection *c, uint32_t id)
{
    std::lock_guard<std::mutex> g(mu_);
    news_.push_back({c, id});
}

void consumer_events::on_expired(doca_comch_connection *c, uint32_t id)
{
    std::lock_guard<std::mutex> g(mu_);
    expired_.push_back({c, id});
}

// ---- fp_server ----

fp_server::fp_server(const std::string &name, server_options o) : server(name, o)
{
    if (!ok())
        return;
    events_rc = doca_comch_server_event_consumer_register(
        handle(),
        [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
            self(conn)->on_new(conn, id);
        },
        [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
            self(conn)->on_expired(conn, id);
        });
}

doca_dev *fp_server::dev() const
{
    doca_dev *d = nullptr;
    doca_comch_server_get_device(handle(), &d);
    return d;
}

bool fp_server::wait_connection(std::chrono::milliseconds t)
{
    return progress_until([&] { return !connections.empty(); }, t);
}

fp_server *fp_server::self(doca_comch_connection *conn)
{
    return static_cast<fp_server *>(
        of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn))));
}

// ---- fp_client ----

fp_client::fp_client(const std::string &name, client_options o) : client(name, o)
{
    if (!ok())
        return;
    events_rc = doca_comch_client_event_consumer_register(
        handle(),
        [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
            self(conn)->on_new(conn, id);
        },
        [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
            self(conn)->on_expired(conn, id);
        });
}

doca_dev *fp_client::dev() const
{
    doca_dev *d = nullptr;
    doca_comch_client_get_device(handle(), &d);
    return d;
}

fp_client *fp_client::self(doca_comch_connection *conn)
{
    return static_cast<fp_client *>(
        of(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn))));
}

} // namespace sc_test::fp

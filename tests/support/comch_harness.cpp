// SPDX-License-Identifier: Apache-2.0
//
// The definitions of comch_harness.hpp: the server/client wrappers and the child-process helpers.
#include "comch_harness.hpp"

#include <cctype>

namespace sc_test {

// ---- side ----

doca_ctx_states side::state() const
{
    doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    doca_ctx_get_state(ctx_, &s);
    return s;
}

side::~side()
{
    if (epfd_ >= 0)
        ::close(epfd_); // the epoll set of wait_event()
}

bool side::progress_until(const std::function<bool()> &pred, std::chrono::milliseconds timeout)
{
    auto end = clock::now() + timeout;
    while (!pred()) {
        if (clock::now() > end)
            return false;
        progress();
    }
    return true;
}

void side::progress()
{
    if (epoll_mode_)
        wait_event(5);
    else if (doca_pe_progress(pe_) == 0)
        std::this_thread::sleep_for(5us);
}

void side::progress_for(std::chrono::milliseconds d)
{
    auto end = clock::now() + d;
    do
        progress();
    while (clock::now() <= end);
}

void side::wait_event(int ms)
{
    if (epfd_ < 0) {
        doca_notification_handle_t h;
        doca_pe_get_notification_handle(pe_, &h);
        epfd_ = epoll_create1(EPOLL_CLOEXEC);
        epoll_event ev{};
        ev.events = EPOLLIN;
        epoll_ctl(epfd_, EPOLL_CTL_ADD, h, &ev);
        handle_ = h;
    }
    doca_pe_request_notification(pe_);
    epoll_event ev;
    epoll_wait(epfd_, &ev, 1, ms);
    doca_pe_clear_notification(pe_, handle_);
    while (doca_pe_progress(pe_)) {
    }
}

doca_error_t side::send(doca_comch_connection *conn, const void *data, uint32_t len)
{
    std::unique_ptr<char[]> copy;
    if (data != nullptr && len != 0) {
        copy = std::make_unique<char[]>(len);
        std::memcpy(copy.get(), data, len);
    }
    const void *msg = copy ? copy.get() : data;
    doca_comch_task_send *task = nullptr;
    doca_error_t rc;
    auto end = clock::now() + 5s;
    for (;;) {
        rc = alloc_send(conn, msg, len, &task);
        if (rc != DOCA_ERROR_NO_MEMORY || clock::now() > end)
            break;
        doca_pe_progress(pe_);
    }
    if (rc != DOCA_SUCCESS)
        return rc;
    // Kept from here: once submitted, the library may read the message until send_done.
    in_flight_[task] = std::move(copy);
    rc = doca_task_submit(doca_comch_task_send_as_task(task));
    // AGAIN: not submitted, the task is still ours; a program that opted in submits it again.
    while (rc == DOCA_ERROR_AGAIN && retry_again && clock::now() <= end) {
        doca_pe_progress(pe_);
        rc = doca_task_submit(doca_comch_task_send_as_task(task));
    }
    if (rc != DOCA_SUCCESS) {
        in_flight_.erase(task);
        doca_task_free(doca_comch_task_send_as_task(task));
    }
    return rc;
}

doca_error_t side::stop_and_wait(std::chrono::milliseconds timeout)
{
    doca_error_t rc = doca_ctx_stop(ctx_);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        return rc;
    return progress_until([&] { return state() == DOCA_CTX_STATE_IDLE; }, timeout)
               ? DOCA_SUCCESS
               : DOCA_ERROR_TIME_OUT;
}

side *side::of(doca_ctx *ctx)
{
    union doca_data d;
    doca_ctx_get_user_data(ctx, &d);
    return static_cast<side *>(d.ptr);
}

void side::attach_common()
{
    doca_pe_connect_ctx(pe_, ctx_);
    doca_ctx_set_state_changed_cb(
        ctx_, [](const union doca_data ud, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
            static_cast<side *>(ud.ptr)->states.push_back(next);
        });
    union doca_data d;
    d.ptr = this;
    doca_ctx_set_user_data(ctx_, d);
}

void side::send_done(doca_comch_task_send *task, union doca_data, union doca_data ctx_ud)
{
    side *s = static_cast<side *>(ctx_ud.ptr);
    const doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));
    if (status == DOCA_SUCCESS) {
        s->send_ok++;
    } else {
        s->send_err++;
        s->send_errors.push_back(status);
    }
    s->in_flight_.erase(task);
    doca_task_free(doca_comch_task_send_as_task(task));
}

void side::deliver(doca_comch_connection *conn, const uint8_t *buf, uint32_t len)
{
    if (on_recv)
        on_recv(*this, conn, buf, len);
    else
        received.push_back({conn, std::string(reinterpret_cast<const char *>(buf), len)});
}

// ---- server ----

server::server(const std::string &name, server_options o)
{
    dev_ = open_dev(o.dev_pci);
    rep_ = dev_ ? open_rep(dev_, o.rep_pci) : nullptr;
    if (!dev_ || !rep_ || doca_pe_create(&pe_) != DOCA_SUCCESS ||
        doca_comch_server_create(dev_, rep_, name.c_str(), &srv_) != DOCA_SUCCESS) {
        ok_ = false;
        return;
    }
    ctx_ = doca_comch_server_as_ctx(srv_);
    attach_common();
    doca_comch_server_task_send_set_conf(srv_, send_done, send_done, o.send_tasks);
    doca_comch_server_event_msg_recv_register(srv_, [](doca_comch_event_msg_recv *, uint8_t *buf,
                                                       uint32_t len, doca_comch_connection *conn) {
        of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn)))
            ->deliver(conn, buf, len);
    });
    doca_comch_server_event_connection_status_changed_register(
        srv_,
        [](doca_comch_event_connection_status_changed *, doca_comch_connection *conn, uint8_t ok) {
            auto *s = static_cast<server *>(
                of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn))));
            if (ok)
                s->connections.push_back(conn);
        },
        [](doca_comch_event_connection_status_changed *, doca_comch_connection *conn, uint8_t) {
            auto *s = static_cast<server *>(
                of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn))));
            s->disconnected.push_back(conn);
            std::erase(s->connections, conn);
        });
    doca_comch_server_set_recv_queue_size(srv_, o.recv_queue_size);
}

server::~server()
{
    if (srv_) {
        if (state() != DOCA_CTX_STATE_IDLE)
            stop_and_wait();
        doca_comch_server_destroy(srv_);
    }
    if (pe_)
        doca_pe_destroy(pe_);
    if (rep_)
        doca_dev_rep_close(rep_);
    if (dev_)
        doca_dev_close(dev_);
}

doca_error_t server::alloc_send(doca_comch_connection *c, const void *d, uint32_t l,
                                doca_comch_task_send **t)
{
    return doca_comch_server_task_send_alloc_init(srv_, c, d, l, t);
}

// ---- client ----

client::client(const std::string &name, client_options o)
{
    dev_ = open_dev(o.dev_pci);
    if (!dev_ || doca_pe_create(&pe_) != DOCA_SUCCESS ||
        doca_comch_client_create(dev_, name.c_str(), &cli_) != DOCA_SUCCESS) {
        ok_ = false;
        return;
    }
    ctx_ = doca_comch_client_as_ctx(cli_);
    attach_common();
    doca_comch_client_task_send_set_conf(cli_, send_done, send_done, o.send_tasks);
    doca_comch_client_event_msg_recv_register(cli_, [](doca_comch_event_msg_recv *, uint8_t *buf,
                                                       uint32_t len, doca_comch_connection *conn) {
        of(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn)))
            ->deliver(conn, buf, len);
    });
    doca_comch_client_set_recv_queue_size(cli_, o.recv_queue_size);
}

client::~client()
{
    if (cli_) {
        if (state() != DOCA_CTX_STATE_IDLE)
            stop_and_wait();
        doca_comch_client_destroy(cli_);
    }
    if (pe_)
        doca_pe_destroy(pe_);
    if (dev_)
        doca_dev_close(dev_);
}

bool client::wait_running(std::chrono::milliseconds t)
{
    return progress_until([&] { return state() == DOCA_CTX_STATE_RUNNING; }, t);
}

doca_comch_connection *client::connection() const
{
    doca_comch_connection *c = nullptr;
    doca_comch_client_get_connection(cli_, &c);
    return c;
}

doca_error_t client::alloc_send(doca_comch_connection *c, const void *d, uint32_t l,
                                doca_comch_task_send **t)
{
    return doca_comch_client_task_send_alloc_init(cli_, c, d, l, t);
}

} // namespace sc_test

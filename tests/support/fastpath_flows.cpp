// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_flows.hpp.
#include "fastpath_flows.hpp"

#include "fastpath_checks.hpp"

namespace sc_test::fp {

// ---- child_guard ----

child_guard::~child_guard()
{
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        wait_child(pid_, 5000ms);
    }
}

int child_guard::wait(std::chrono::milliseconds timeout)
{
    int rc = wait_child(pid_, timeout);
    pid_ = -1;
    return rc;
}

int child_guard::kill_and_wait(std::chrono::milliseconds timeout)
{
    kill(pid_, SIGKILL);
    return wait(timeout);
}

// ---- control-channel helpers ----

bool expect_msg(side &s, const std::string &prefix, std::string *rest,
                std::chrono::milliseconds timeout, doca_pe *also)
{
    auto take = [&] {
        for (auto it = s.received.begin(); it != s.received.end(); ++it)
            if (it->data.compare(0, prefix.size(), prefix) == 0) {
                if (rest)
                    *rest = it->data.substr(prefix.size());
                s.received.erase(it);
                return true;
            }
        return false;
    };
    if (take())
        return true;
    if (also) {
        pe_group g({s.pe(), also});
        return g.until(take, timeout);
    }
    return s.progress_until(take, timeout);
}

doca_error_t send_ctrl(side &s, doca_comch_connection *conn, const std::string &text,
                       std::chrono::milliseconds timeout)
{
    size_t before = s.send_ok + s.send_err;
    doca_error_t rc = s.send(conn, text);
    if (rc != DOCA_SUCCESS)
        return rc;
    if (!s.progress_until([&] { return s.send_ok + s.send_err > before; }, timeout))
        return DOCA_ERROR_TIME_OUT;
    return DOCA_SUCCESS;
}

// ---- connection set-up and orderly end ----

bool establish(fp_server &s, doca_comch_connection *&conn, std::chrono::milliseconds t)
{
    if (!s.wait_connection(t))
        return false;
    conn = s.connections.front();
    return true;
}

bool establish(fp_client &c, doca_comch_connection *&conn, std::chrono::milliseconds t)
{
    if (!c.wait_running(t))
        return false;
    conn = c.connection();
    return conn != nullptr;
}

std::string exchange_fin(side &s, doca_comch_connection *conn)
{
    doca_error_t rc = send_ctrl(s, conn, "fin");
    REQ_EQ(rc, DOCA_SUCCESS);
    REQ_MSG(expect_msg(s, "fin", nullptr, 10000ms), "no \"fin\" from the peer");
    return "";
}

std::string finish(fp_server &s, doca_comch_connection *conn)
{
    std::string e = exchange_fin(s, conn);
    if (!e.empty())
        return e;
    REQ_MSG(s.progress_until([&] { return !s.disconnected.empty(); }, 10000ms),
            "client did not disconnect");
    REQ_EQ(s.stop_and_wait(), DOCA_SUCCESS);
    return "";
}

std::string finish(fp_client &c, doca_comch_connection *conn)
{
    std::string e = exchange_fin(c, conn);
    if (!e.empty())
        return e;
    REQ_EQ(c.stop_and_wait(), DOCA_SUCCESS);
    return "";
}

template <class S>
int run_side(const std::string &name, bool epoll,
             const std::function<std::string(S &, doca_comch_connection *)> &body)
{
    S s(name);
    CHILD_CHECK(s.ok());
    CHILD_CHECK_EQ(s.events_rc, DOCA_SUCCESS);
    s.set_epoll_mode(epoll);
    CHILD_CHECK_EQ(s.start(), expected_start_rc(s));
    doca_comch_connection *conn = nullptr;
    CHILD_CHECK(establish(s, conn));
    std::string err = body(s, conn);
    CHILD_CHECK_MSG(err.empty(), "%s", err.c_str());
    err = finish(s, conn);
    CHILD_CHECK_MSG(err.empty(), "%s", err.c_str());
    return 0;
}

template int
run_side<fp_server>(const std::string &, bool,
                    const std::function<std::string(fp_server &, doca_comch_connection *)> &);
template int
run_side<fp_client>(const std::string &, bool,
                    const std::function<std::string(fp_client &, doca_comch_connection *)> &);

// ---- consumers and producers ----

std::string learn_remote_consumer(side &s, consumer_events &ev, doca_comch_connection *conn,
                                  uint32_t &cid, const char *prefix)
{
    std::string rest;
    REQ_MSG(expect_msg(s, prefix, &rest, 10000ms), "no \"%s\" message", prefix);
    cid = uint32_t(parse_u64(rest));
    REQ_MSG(cid != 0, "consumer id 0 announced");
    uint32_t id = cid;
    REQ_MSG(s.progress_until([&] { return ev.has_new(id); }, 5000ms),
            "no new-consumer event for id %u", id);
    for (auto &e : ev.news())
        if (e.id == id)
            REQ_MSG(e.conn == conn, "new-consumer event for %u on another connection", id);
    return "";
}

std::string start_consumer(consumer &c, side &s)
{
    REQ_MSG(c.ok(), "consumer set-up failed: create %s, setup %s", err_name(c.create_rc).c_str(),
            err_name(c.setup_rc).c_str());
    REQ_MSG(c.id() != 0, "consumer id is 0");
    REQ_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    REQ_EQ(c.state(), DOCA_CTX_STATE_STARTING);
    REQ_MSG(c.wait_running(s.pe(), 10000ms), "consumer not RUNNING (state %s)",
            state_name(c.state()).c_str());
    return "";
}

std::string start_producer(producer &p)
{
    REQ_MSG(p.ok(), "producer set-up failed: create %s, setup %s", err_name(p.create_rc).c_str(),
            err_name(p.setup_rc).c_str());
    REQ_EQ(p.start(), DOCA_SUCCESS);
    REQ_EQ(p.state(), DOCA_CTX_STATE_RUNNING);
    REQ_MSG(p.id() != 0, "producer id is 0");
    return "";
}

} // namespace sc_test::fp

// SPDX-License-Identifier: Apache-2.0
//
// The transport boundary (src/transport/transport.hpp, registry.hpp): the selection by
// SOFTCOMCH_TRANSPORT, and one connection of the shm transport driven through the interfaces
// only, as src/comch drives it: handshake, a control-path message, a consumer announced,
// acknowledged, written into and expired, and the peer's hang-up; and the faults' drop.
#include "transport/registry.hpp"
#include "transport/transport.hpp"

#include <gtest/gtest.h>

#include <sys/epoll.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

using namespace softcomch::transport;
namespace tp = softcomch::transport; // `link` alone also names ::link (unistd.h)

namespace {

// Restores SOFTCOMCH_TRANSPORT when a test is done with it.
struct transport_env {
    std::string saved;
    bool had;
    transport_env()
    {
        const char *v = std::getenv(k_transport_env);
        had = v != nullptr;
        if (had)
            saved = v;
    }
    ~transport_env()
    {
        if (had)
            ::setenv(k_transport_env, saved.c_str(), 1);
        else
            ::unsetenv(k_transport_env);
    }
};

// Records what a link's slow channel delivered.
struct recorder final : link_handler {
    struct announced {
        uint32_t id;
        std::unique_ptr<remote_consumer> consumer;
        doca_error_t status;
    };
    std::vector<announced> announcements;
    std::vector<std::pair<uint32_t, doca_error_t>> acks;
    std::vector<uint32_t> expiries;
    std::vector<std::string> rejected;

    void consumer_announced(uint32_t id, std::unique_ptr<remote_consumer> c,
                            doca_error_t status) override
    {
        announcements.push_back({id, std::move(c), status});
    }
    void consumer_acknowledged(uint32_t id, doca_error_t status) override
    {
        acks.emplace_back(id, status);
    }
    void consumer_expired(uint32_t id) override { expiries.push_back(id); }
    void peer_rejected(doca_error_t, const std::string &text) override { rejected.push_back(text); }
};

// What the progress engine does when a link's socket becomes readable, then service().
unsigned serve(tp::link &l, link_handler &h, uint32_t events = EPOLLIN)
{
    watch_handle hs[k_max_handles];
    EXPECT_EQ(l.handles(hs), 2u);
    l.on_ready(0, events);
    EXPECT_TRUE(l.slow_pending());
    return l.service(h);
}

struct connected_pair {
    std::unique_ptr<listener> server;
    std::unique_ptr<tp::link> s; // server side
    std::unique_ptr<tp::link> c; // client side
};

void connect_pair(const transport_ops &t, connected_pair &p)
{
    endpoint_info info;
    info.key = {"bf0", "0000:b1:00.0", "boundary-" + std::to_string(::getpid())};
    info.pid = int(::getpid());
    info.max_msg_size = 256;
    info.recv_queue_size = 8;
    std::string why;
    ASSERT_EQ(t.listen(info, p.server, why), DOCA_SUCCESS) << why;

    std::unique_ptr<connector> conn;
    ASSERT_EQ(t.connect(info.key, link_params{128, 4}, conn, why), DOCA_SUCCESS) << why;
    watch_handle hs[k_max_handles];
    EXPECT_EQ(conn->handles(hs), 0u); // looking for the server: nothing to watch yet
    ASSERT_EQ(conn->step(p.c, why), connector::result::in_progress) << why;
    EXPECT_EQ(conn->handles(hs), 1u); // the handshake in flight

    std::unique_ptr<pending> hs_pending;
    ASSERT_EQ(p.server->accept(hs_pending), DOCA_SUCCESS);
    hello_info hello;
    ASSERT_EQ(hs_pending->read_hello(hello), DOCA_SUCCESS);
    EXPECT_EQ(hello.name, info.key.name);
    EXPECT_EQ(hello.params.max_msg_size, 128u);
    ASSERT_EQ(hs_pending->accept(link_params{256, 8}, hello, 42, p.s), DOCA_SUCCESS);

    ASSERT_EQ(conn->step(p.c, why), connector::result::connected) << why;
    ASSERT_TRUE(p.s && p.c);
    // A second server of the same name is refused (its probe of ours is a connection that
    // closes without a handshake).
    std::unique_ptr<listener> again;
    EXPECT_EQ(t.listen(info, again, why), DOCA_ERROR_ALREADY_EXIST);
}

} // namespace

TEST(unit_transport_registry, default_is_shm)
{
    transport_env env;
    ::unsetenv(k_transport_env);
    const transport_ops *t = nullptr;
    std::string why;
    ASSERT_EQ(select_transport(t, why), DOCA_SUCCESS);
    ASSERT_NE(t, nullptr);
    EXPECT_STREQ(t->name, "shm");
    EXPECT_EQ(t, find_transport("shm"));
    EXPECT_EQ(t, &shm::traits::ops());
    ::setenv(k_transport_env, "", 1);
    t = nullptr;
    ASSERT_EQ(select_transport(t, why), DOCA_SUCCESS);
    EXPECT_EQ(t, find_transport("shm"));
    ::setenv(k_transport_env, "shm", 1);
    t = nullptr;
    ASSERT_EQ(select_transport(t, why), DOCA_SUCCESS);
    EXPECT_EQ(t, find_transport("shm"));
    EXPECT_TRUE(why.empty());
}

TEST(unit_transport_registry, refuses_an_unknown_name)
{
    transport_env env;
    EXPECT_EQ(find_transport("ucx"), nullptr);
    EXPECT_EQ(find_transport("SHM"), nullptr); // case-sensitive, like the other knobs
    EXPECT_EQ(find_transport(""), nullptr);
    ::setenv(k_transport_env, "ucx", 1);
    const transport_ops *t = &shm::traits::ops();
    std::string why;
    EXPECT_EQ(select_transport(t, why), DOCA_ERROR_BAD_CONFIG);
    EXPECT_EQ(t, &shm::traits::ops()); // untouched
    EXPECT_NE(why.find("SOFTCOMCH_TRANSPORT"), std::string::npos) << why;
    EXPECT_NE(why.find("\"ucx\""), std::string::npos) << why;
    EXPECT_NE(why.find("known: shm"), std::string::npos) << why;
}

TEST(unit_transport_boundary, shm_connection_through_the_interfaces)
{
    const transport_ops &t = *find_transport("shm");
    connected_pair p;
    ASSERT_NO_FATAL_FAILURE(connect_pair(t, p));
    EXPECT_EQ(p.s->max_msg_size(), 128u); // the smaller of both sides'
    EXPECT_EQ(p.c->max_msg_size(), 128u);
    EXPECT_EQ(p.c->id(), 42u);
    EXPECT_EQ(p.s->peer_pid(), int(::getpid()));
    EXPECT_EQ(&p.c->ops(), &t);

    // A control-path message on the data path, through the concrete class.
    with_concrete(*p.c, [](auto &l) {
        void *slot = l.try_claim(5);
        ASSERT_NE(slot, nullptr);
        std::memcpy(slot, "hello", 5);
        l.commit(msg_type::data, 5);
    });
    with_concrete(*p.s, [](auto &l) {
        const auto *m = l.peek();
        ASSERT_NE(m, nullptr);
        EXPECT_EQ(m->type, uint16_t(msg_type::data));
        ASSERT_EQ(m->len, 5u);
        EXPECT_EQ(std::memcmp(m->data, "hello", 5), 0);
        l.release();
        EXPECT_EQ(l.peek(), nullptr);
    });

    // A consumer on the client side, announced to the server side.
    const size_t mem_len = 2 * 4096;
    auto *mem = static_cast<uint8_t *>(std::aligned_alloc(4096, mem_len));
    ASSERT_NE(mem, nullptr);
    std::memset(mem, 0, mem_len);
    std::string why;
    std::unique_ptr<memory_export> exported;
    ASSERT_EQ(t.export_memory(mem, mem_len, exported, why), DOCA_SUCCESS) << why;
    std::unique_ptr<consumer_endpoint> ep;
    ASSERT_EQ(t.make_consumer(consumer_params{4, 8, 7}, *exported, ep), DOCA_SUCCESS);
    watch_handle hs[k_max_handles];
    EXPECT_EQ(ep->handles(hs), 1u);
    ASSERT_EQ(p.c->announce(*ep, *exported), DOCA_SUCCESS);

    recorder server_side;
    EXPECT_EQ(serve(*p.s, server_side), 1u);
    EXPECT_FALSE(p.s->slow_pending());
    ASSERT_EQ(server_side.announcements.size(), 1u);
    auto &a = server_side.announcements[0];
    ASSERT_EQ(a.status, DOCA_SUCCESS);
    EXPECT_EQ(a.id, 7u);
    ASSERT_TRUE(a.consumer);
    EXPECT_EQ(a.consumer->id(), 7u);
    EXPECT_EQ(a.consumer->imm_data_len(), 8u);

    EXPECT_FALSE(with_concrete(*ep, [](auto &q) { return q.accepted(); }));
    a.consumer->accept();
    p.s->acknowledge(7, DOCA_SUCCESS);
    EXPECT_TRUE(with_concrete(*ep, [](auto &q) { return q.accepted(); }));
    recorder client_side;
    EXPECT_EQ(serve(*p.c, client_side), 1u);
    ASSERT_EQ(client_side.acks.size(), 1u);
    EXPECT_EQ(client_side.acks[0], std::make_pair(7u, DOCA_SUCCESS));

    // The fast path: post, claim, write (the one copy), complete, peek.
    ASSERT_EQ(
        with_concrete(
            *ep, [&](auto &q) { return q.post(0, reinterpret_cast<uint64_t>(mem + 100), 64); }),
        DOCA_SUCCESS);
    std::unique_ptr<write_plan> plan;
    ASSERT_EQ(t.make_write_plan(plan, why), DOCA_SUCCESS) << why;
    EXPECT_NE(plan->describe().find("copy policy"), std::string::npos);
    with_concrete(*a.consumer, [&](const auto &r) {
        typename std::remove_cvref_t<decltype(r)>::posted e;
        EXPECT_EQ(r.try_claim(65, &e), DOCA_ERROR_TOO_BIG); // nothing claimed
        ASSERT_EQ(r.try_claim(6, &e), DOCA_SUCCESS);
        EXPECT_EQ(e.task, 0u);
        ASSERT_EQ(r.write(e, "world", 6, *plan), DOCA_SUCCESS);
        typename std::remove_cvref_t<decltype(r)>::completion c{};
        c.task = e.task;
        c.producer_id = 3;
        c.len = 6;
        bool wake = true;
        ASSERT_EQ(r.complete(c, &wake), DOCA_SUCCESS);
        EXPECT_FALSE(wake); // the consumer did not arm
        EXPECT_EQ(r.try_claim(1, &e), DOCA_ERROR_AGAIN);
    });
    with_concrete(*ep, [&](auto &q) {
        const auto *c = q.peek();
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(c->task, 0u);
        EXPECT_EQ(c->len, 6u);
        EXPECT_EQ(c->producer_id, 3u);
        q.release();
        EXPECT_FALSE(q.corrupted());
    });
    EXPECT_STREQ(reinterpret_cast<const char *>(mem + 100), "world");

    // Expiry: the channel's word at once, the message for the peer's bookkeeping.
    with_concrete(*ep, [](auto &q) { q.expire(); });
    EXPECT_TRUE(with_concrete(*a.consumer, [](const auto &r) { return r.expired(); }));
    p.c->expire(7);
    EXPECT_EQ(serve(*p.s, server_side), 1u);
    ASSERT_EQ(server_side.expiries.size(), 1u);
    EXPECT_EQ(server_side.expiries[0], 7u);
    EXPECT_TRUE(server_side.rejected.empty());
    EXPECT_EQ(p.s->violation(), nullptr);

    // The client goes: the server's link notices the hang-up.
    a.consumer.reset();
    ep.reset();
    ASSERT_EQ(exported->release(), DOCA_SUCCESS);
    exported.reset();
    p.c.reset();
    EXPECT_FALSE(p.s->peer_gone());
    serve(*p.s, server_side, EPOLLIN | EPOLLRDHUP);
    EXPECT_TRUE(p.s->peer_gone());
    std::free(mem);
}

TEST(unit_transport_boundary, pvw_memory_and_a_refusal)
{
    const transport_ops &t = *find_transport("shm");
    connected_pair p;
    ASSERT_NO_FATAL_FAILURE(connect_pair(t, p));
    // Consumer memory written with process_vm_writev, announced with two descriptors.
    auto *mem = static_cast<uint8_t *>(std::aligned_alloc(4096, 4096));
    ASSERT_NE(mem, nullptr);
    transport_env env;
    ::setenv("SOFTCOMCH_MEMORY", "pvw", 1);
    std::string why;
    std::unique_ptr<memory_export> exported;
    ASSERT_EQ(t.export_memory(mem, 4096, exported, why), DOCA_SUCCESS) << why;
    EXPECT_STREQ(exported->mechanism_name(), "pvw");
    ::setenv("SOFTCOMCH_MEMORY", "bogus", 1);
    std::unique_ptr<memory_export> refused;
    EXPECT_EQ(t.export_memory(mem, 4096, refused, why), DOCA_ERROR_BAD_CONFIG);
    EXPECT_NE(why.find("SOFTCOMCH_MEMORY"), std::string::npos);
    ::unsetenv("SOFTCOMCH_MEMORY");
    std::unique_ptr<consumer_endpoint> ep;
    ASSERT_EQ(t.make_consumer(consumer_params{2, 0, 9}, *exported, ep), DOCA_SUCCESS);
    ASSERT_EQ(p.c->announce(*ep, *exported), DOCA_SUCCESS);
    recorder server_side;
    EXPECT_EQ(serve(*p.s, server_side), 1u);
    ASSERT_EQ(server_side.announcements.size(), 1u);
    // Same process, so the pvw probe succeeds: the consumer is reachable.
    EXPECT_EQ(server_side.announcements[0].status, DOCA_SUCCESS);
    EXPECT_TRUE(server_side.announcements[0].consumer);
    // A refusal travels back as an acknowledgement with the reason.
    p.s->acknowledge(9, DOCA_ERROR_NOT_PERMITTED);
    recorder client_side;
    EXPECT_EQ(serve(*p.c, client_side), 1u);
    ASSERT_EQ(client_side.acks.size(), 1u);
    EXPECT_EQ(client_side.acks[0], std::make_pair(9u, DOCA_ERROR_NOT_PERMITTED));
    std::free(mem);
}

// Faults on demand (src/comch/fault_hooks.cpp): drop() ends the connection as the death of this
// side's process would, for both sides (each reads the end of its socket, messages already in
// a receive queue stay readable), and receive_counts() follows the receive queue.
TEST(unit_transport_boundary, drop_ends_the_connection_for_both_sides)
{
    const transport_ops &t = *find_transport("shm");
    connected_pair p;
    ASSERT_NO_FATAL_FAILURE(connect_pair(t, p));
    with_concrete(*p.c, [](auto &l) {
        for (const char *m : {"one", "two"}) {
            void *slot = l.try_claim(3);
            ASSERT_NE(slot, nullptr);
            std::memcpy(slot, m, 3);
            l.commit(msg_type::data, 3);
        }
    });
    EXPECT_EQ(p.s->receive_counts().taken, 0u);
    EXPECT_EQ(p.s->receive_counts().arrived, 2u);
    with_concrete(*p.s, [](auto &l) {
        ASSERT_NE(l.peek(), nullptr);
        l.release();
    });
    EXPECT_EQ(p.s->receive_counts().taken, 1u);
    EXPECT_EQ(p.s->receive_counts().arrived, 2u);

    p.s->drop();
    recorder server_side, client_side;
    // Both read the end of the connection: on_ready with EPOLLIN alone, the read finds it.
    (void)serve(*p.c, client_side);
    EXPECT_TRUE(p.c->peer_gone());
    (void)serve(*p.s, server_side);
    EXPECT_TRUE(p.s->peer_gone());
    EXPECT_EQ(p.s->violation(), nullptr);
    EXPECT_EQ(p.c->violation(), nullptr);
    EXPECT_TRUE(client_side.rejected.empty() && server_side.rejected.empty());
    with_concrete(*p.s, [](auto &l) {
        const auto *m = l.peek();
        ASSERT_NE(m, nullptr) << "a message received before the drop stays readable";
        EXPECT_EQ(std::memcmp(m->data, "two", 3), 0);
        l.release();
    });
    EXPECT_EQ(p.s->receive_counts().taken, 2u);
}

// SPDX-License-Identifier: Apache-2.0
//
// DOCA graphs and the mmap advise context, through the public headers only
// (include/doca_graph.h, include/doca_mmap_advise.h): NVIDIA's graph pattern (DMA nodes that a
// user node depends on, several instances, each submitted again after it completed), the order
// of nodes, failures of a task node and of a user node, sub-graphs, notification mode, every
// documented refusal of the graph's life cycle, and cache invalidation tasks.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_graph.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "device_lookup.hpp"
#include "dma_fixture.hpp"

inline void PrintTo(doca_error e, std::ostream *os)
{
    *os << doca_error_get_name(e) << " (" << int(e) << ")";
}

namespace {

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

// What the callbacks saw, in order.
struct journal {
    std::vector<std::string> events;
    int task_callbacks = 0; // task callbacks must not run for tasks inside a graph
};
journal *g_journal = nullptr;

void task_cb(doca_dma_task_memcpy *, union doca_data, union doca_data)
{
    ++g_journal->task_callbacks;
}

void instance_ok(doca_graph_instance *, union doca_data inst, union doca_data graph)
{
    g_journal->events.push_back("ok " + std::to_string(inst.u64) + " " + std::to_string(graph.u64));
}
void instance_err(doca_graph_instance *, union doca_data inst, union doca_data)
{
    g_journal->events.push_back("err " + std::to_string(inst.u64));
}

// A user node's cookie: a name, what to return, and a check to run (the data of the nodes it
// depends on).
struct user_step {
    std::string name;
    doca_error_t result = DOCA_SUCCESS;
    std::function<void()> check;
};
doca_error_t user_cb(void *cookie)
{
    auto *s = static_cast<user_step *>(cookie);
    g_journal->events.push_back("user " + s->name);
    if (s->check)
        s->check();
    return s->result;
}

// Two DMA contexts on one engine and one device, and memory for them.
struct rig {
    journal j;
    doca_dev *dev = nullptr;
    doca_pe *pe = nullptr;
    doca_dma *dma[2] = {};
    doca_ctx *ctx[2] = {};
    std::unique_ptr<dma_test::region> mem;

    rig()
    {
        g_journal = &j;
        dev = sc_devices::open_dev("03:00.0");
        EXPECT_NE(dev, nullptr);
        EXPECT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        for (int i = 0; i < 2; ++i) {
            EXPECT_EQ(doca_dma_create(dev, &dma[i]), DOCA_SUCCESS);
            ctx[i] = doca_dma_as_ctx(dma[i]);
            EXPECT_EQ(doca_pe_connect_ctx(pe, ctx[i]), DOCA_SUCCESS);
            EXPECT_EQ(doca_dma_task_memcpy_set_conf(dma[i], task_cb, task_cb, 16), DOCA_SUCCESS);
        }
        mem = std::make_unique<dma_test::region>(dev, 1 << 20);
    }
    ~rig()
    {
        for (int i = 0; i < 2; ++i) {
            if (state(i) != DOCA_CTX_STATE_IDLE) {
                (void)doca_ctx_stop(ctx[i]);
                for (int k = 0; k < 100000 && state(i) != DOCA_CTX_STATE_IDLE; ++k)
                    (void)doca_pe_progress(pe);
            }
            EXPECT_EQ(doca_dma_destroy(dma[i]), DOCA_SUCCESS);
        }
        mem.reset();
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
        g_journal = nullptr;
    }
    doca_ctx_states state(int i) const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        EXPECT_EQ(doca_ctx_get_state(ctx[i], &s), DOCA_SUCCESS);
        return s;
    }
    void start()
    {
        for (auto *c : ctx)
            ASSERT_EQ(doca_ctx_start(c), DOCA_SUCCESS);
    }
    doca_dma_task_memcpy *task(int i, doca_buf *src, doca_buf *dst)
    {
        doca_dma_task_memcpy *t = nullptr;
        union doca_data ud {};
        EXPECT_EQ(doca_dma_task_memcpy_alloc_init(dma[i], src, dst, ud, &t), DOCA_SUCCESS);
        return t;
    }
    bool progress_until(size_t events, int max_calls = 1000000)
    {
        for (int i = 0; i < max_calls && j.events.size() < events; ++i)
            (void)doca_pe_progress(pe);
        return j.events.size() >= events;
    }
};

// The graph of NVIDIA's sample: two DMA nodes, a user node that depends on both.
struct sample_graph {
    doca_graph *g = nullptr;
    doca_graph_node *dma_node[2] = {};
    doca_graph_node *user = nullptr;

    explicit sample_graph(rig &r, uint32_t instances)
    {
        EXPECT_EQ(doca_graph_create(r.pe, &g), DOCA_SUCCESS);
        EXPECT_EQ(doca_graph_node_create_from_user(g, user_cb, &user), DOCA_SUCCESS);
        for (int i = 0; i < 2; ++i) {
            EXPECT_EQ(doca_graph_node_create_from_ctx(g, r.ctx[i], &dma_node[i]), DOCA_SUCCESS);
            EXPECT_EQ(doca_graph_add_dependency(g, dma_node[i], user), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_graph_set_conf(g, instance_ok, instance_err, instances), DOCA_SUCCESS);
        union doca_data ud;
        ud.u64 = 77;
        EXPECT_EQ(doca_graph_set_user_data(g, ud), DOCA_SUCCESS);
    }
    ~sample_graph()
    {
        EXPECT_EQ(doca_graph_stop(g), DOCA_SUCCESS);
        EXPECT_EQ(doca_graph_destroy(g), DOCA_SUCCESS);
    }
};

// One instance of the sample graph: source at `off`, two destinations after it.
struct sample_instance {
    doca_graph_instance *inst = nullptr;
    doca_buf *src = nullptr;
    doca_buf *dst[2] = {};
    doca_dma_task_memcpy *task[2] = {};
    user_step step;

    sample_instance(rig &r, sample_graph &sg, size_t off, size_t len, uint64_t id)
    {
        EXPECT_EQ(doca_graph_instance_create(sg.g, &inst), DOCA_SUCCESS);
        src = r.mem->source(off, len, uint8_t(id));
        for (int i = 0; i < 2; ++i) {
            dst[i] = r.mem->buf(off + len * (i + 1), len, 0);
            task[i] = r.task(i, src, dst[i]);
            EXPECT_EQ(doca_graph_instance_set_ctx_node_data(inst, sg.dma_node[i],
                                                            doca_dma_task_memcpy_as_task(task[i])),
                      DOCA_SUCCESS);
        }
        step.name = std::to_string(id);
        step.check = [this, &r, off, len] {
            // Both copies are done when the user node runs.
            for (int i = 0; i < 2; ++i) {
                size_t n = 0;
                EXPECT_EQ(doca_buf_get_data_len(dst[i], &n), DOCA_SUCCESS);
                EXPECT_EQ(n, len);
                EXPECT_EQ(std::memcmp(r.mem->mem + off, r.mem->mem + off + len * (i + 1), len), 0);
            }
        };
        EXPECT_EQ(doca_graph_instance_set_user_node_data(inst, sg.user, &step), DOCA_SUCCESS);
        union doca_data ud;
        ud.u64 = id;
        EXPECT_EQ(doca_graph_instance_set_user_data(inst, ud), DOCA_SUCCESS);
    }
    ~sample_instance()
    {
        EXPECT_EQ(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
        for (auto *t : task)
            doca_task_free(doca_dma_task_memcpy_as_task(t));
        for (auto *d : dst)
            (void)doca_buf_dec_refcount(d, nullptr);
        (void)doca_buf_dec_refcount(src, nullptr);
    }
    // Empties the destinations so the instance can run again.
    void reset()
    {
        for (auto *d : dst)
            EXPECT_EQ(doca_buf_reset_data_len(d), DOCA_SUCCESS);
    }
};

TEST(Graph, NvidiaPatternRunsEveryInstanceWithoutTaskCallbacks)
{
    rig r;
    r.start();
    sample_graph sg(r, 4);
    ASSERT_EQ(doca_graph_start(sg.g), DOCA_SUCCESS);
    std::vector<std::unique_ptr<sample_instance>> inst;
    for (uint64_t i = 0; i < 4; ++i)
        inst.push_back(std::make_unique<sample_instance>(r, sg, i * 3 * 4096, 4096, i + 1));
    doca_graph_instance *extra = nullptr;
    EXPECT_EQ(doca_graph_instance_create(sg.g, &extra), DOCA_ERROR_NO_MEMORY);
    for (auto &i : inst)
        ASSERT_EQ(doca_graph_instance_submit(i->inst), DOCA_SUCCESS);
    // Nothing of the program's runs inside submit.
    EXPECT_TRUE(r.j.events.empty());
    EXPECT_EQ(doca_graph_instance_submit(inst[0]->inst), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_graph_instance_destroy(inst[0]->inst), DOCA_ERROR_IN_USE);
    ASSERT_TRUE(r.progress_until(8));
    for (uint64_t i = 0; i < 4; ++i) {
        // Each instance's user node ran before its completion.
        auto user =
            std::find(r.j.events.begin(), r.j.events.end(), "user " + std::to_string(i + 1));
        auto ok =
            std::find(r.j.events.begin(), r.j.events.end(), "ok " + std::to_string(i + 1) + " 77");
        ASSERT_NE(user, r.j.events.end());
        ASSERT_NE(ok, r.j.events.end());
        EXPECT_LT(user, ok);
    }
    EXPECT_EQ(r.j.task_callbacks, 0);
    // The graph's tasks went back to the program: a stop in between would find nothing.
    size_t inflight = 99;
    EXPECT_EQ(doca_pe_get_num_inflight_tasks(r.pe, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 0u);

    // Submitted again after it completed.
    r.j.events.clear();
    inst[2]->reset();
    ASSERT_EQ(doca_graph_instance_submit(inst[2]->inst), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(2));
    EXPECT_EQ(r.j.events, (std::vector<std::string>{"user 3", "ok 3 77"}));

    // Stop refuses while instances exist; the pe while the graph exists.
    EXPECT_EQ(doca_graph_stop(sg.g), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_graph_destroy(sg.g), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_pe_destroy(r.pe), DOCA_ERROR_IN_USE);
    inst.clear();
}

TEST(Graph, FailedTaskNodeFailsTheInstanceAndSkipsItsSuccessors)
{
    rig r;
    r.start();
    sample_graph sg(r, 1);
    ASSERT_EQ(doca_graph_start(sg.g), DOCA_SUCCESS);
    sample_instance si(r, sg, 0, 4096, 5);
    // The second copy's destination has room for half the data: that task fails at its turn.
    doca_buf *small = r.mem->buf(64 * 4096, 2048, 0);
    doca_dma_task_memcpy_set_dst(si.task[1], small);
    ASSERT_EQ(doca_graph_instance_submit(si.inst), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(1));
    EXPECT_EQ(r.j.events, (std::vector<std::string>{"err 5"}));
    EXPECT_EQ(doca_task_get_status(doca_dma_task_memcpy_as_task(si.task[1])),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(r.j.task_callbacks, 0);
    // As for any DMA task error, the failing task's context stops by itself.
    for (int k = 0; k < 1000 && r.state(1) != DOCA_CTX_STATE_IDLE; ++k)
        (void)doca_pe_progress(r.pe);
    EXPECT_EQ(r.state(1), DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(r.state(0), DOCA_CTX_STATE_RUNNING);
    // Submitted again with its context stopped: the root cannot be submitted, and with nothing
    // of the instance in flight the call says so.
    doca_dma_task_memcpy_set_dst(si.task[1], si.dst[1]);
    (void)doca_buf_dec_refcount(small, nullptr);
    r.j.events.clear();
    si.reset();
    EXPECT_EQ(doca_graph_instance_submit(si.inst), DOCA_SUCCESS); // node 0 started first
    ASSERT_TRUE(r.progress_until(1));
    EXPECT_EQ(r.j.events, (std::vector<std::string>{"err 5"}));
}

TEST(Graph, FailedUserNodeFailsTheInstance)
{
    rig r;
    r.start();
    doca_graph *g = nullptr;
    ASSERT_EQ(doca_graph_create(r.pe, &g), DOCA_SUCCESS);
    doca_graph_node *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(doca_graph_node_create_from_ctx(g, r.ctx[0], &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_user(g, user_cb, &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_user(g, user_cb, &c), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, b, c), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_set_conf(g, instance_ok, instance_err, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = nullptr;
    ASSERT_EQ(doca_graph_instance_create(g, &inst), DOCA_SUCCESS);
    doca_buf *src = r.mem->source(0, 100, 1);
    doca_buf *dst = r.mem->buf(4096, 100, 0);
    doca_dma_task_memcpy *t = r.task(0, src, dst);
    user_step sb{"b", DOCA_ERROR_BAD_STATE, {}}, sc{"c", DOCA_SUCCESS, {}};
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, a, doca_dma_task_memcpy_as_task(t)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, b, &sb), DOCA_SUCCESS);
    // A node left without data: the submission is refused.
    EXPECT_EQ(doca_graph_instance_submit(inst), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, c, &sc), DOCA_SUCCESS);
    union doca_data ud;
    ud.u64 = 9;
    ASSERT_EQ(doca_graph_instance_set_user_data(inst, ud), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(2));
    EXPECT_EQ(r.j.events, (std::vector<std::string>{"user b", "err 9"}));
    // The DMA context is unaffected by a user node's failure.
    EXPECT_EQ(r.state(0), DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
    doca_task_free(doca_dma_task_memcpy_as_task(t));
    (void)doca_buf_dec_refcount(src, nullptr);
    (void)doca_buf_dec_refcount(dst, nullptr);
    EXPECT_EQ(doca_graph_stop(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(g), DOCA_SUCCESS);
}

TEST(Graph, SubGraphRunsBetweenItsParentsNodes)
{
    rig r;
    r.start();
    // Sub-graph: one DMA copy, then a user node.
    doca_graph *sub = nullptr;
    doca_graph_node *s_dma = nullptr, *s_user = nullptr;
    ASSERT_EQ(doca_graph_create(r.pe, &sub), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_ctx(sub, r.ctx[0], &s_dma), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_user(sub, user_cb, &s_user), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(sub, s_dma, s_user), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_set_conf(sub, instance_ok, instance_err, 2), DOCA_SUCCESS);
    // Parent: user "first" -> sub-graph -> DMA -> user "last". A sub-graph must be started first.
    doca_graph *g = nullptr;
    doca_graph_node *first = nullptr, *sg = nullptr, *p_dma = nullptr, *last = nullptr;
    ASSERT_EQ(doca_graph_create(r.pe, &g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_node_create_from_graph(g, sub, &sg), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_graph_start(sub), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_node_create_from_graph(g, g, &sg), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_graph_node_create_from_user(g, user_cb, &first), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_graph(g, sub, &sg), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_ctx(g, r.ctx[1], &p_dma), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_user(g, user_cb, &last), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, first, sg), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, sg, p_dma), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, p_dma, last), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_set_conf(g, instance_ok, instance_err, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    // A started sub-graph cannot go while a graph runs it.
    EXPECT_EQ(doca_graph_stop(sub), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(sub), DOCA_ERROR_IN_USE);
    ASSERT_EQ(doca_graph_start(sub), DOCA_SUCCESS);

    doca_graph_instance *si = nullptr, *pi = nullptr;
    ASSERT_EQ(doca_graph_instance_create(sub, &si), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_create(g, &pi), DOCA_SUCCESS);
    // The sub-graph copies [0,256) to 4096; the parent copies what the sub-graph wrote onwards.
    doca_buf *a_src = r.mem->source(0, 256, 3);
    doca_buf *a_dst = r.mem->buf(4096, 256, 0);
    doca_buf *b_dst = r.mem->buf(8192, 256, 0);
    doca_dma_task_memcpy *ta = r.task(0, a_src, a_dst);
    doca_dma_task_memcpy *tb = r.task(1, a_dst, b_dst);
    user_step u_first{"first", DOCA_SUCCESS, {}}, u_sub{"sub", DOCA_SUCCESS, {}},
        u_last{"last", DOCA_SUCCESS, [&] {
                   EXPECT_EQ(std::memcmp(r.mem->mem, r.mem->mem + 8192, 256), 0);
               }};
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(si, s_dma, doca_dma_task_memcpy_as_task(ta)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(si, s_user, &u_sub), DOCA_SUCCESS);
    // Node data of the wrong kind, another graph's node, another context's task.
    EXPECT_EQ(doca_graph_instance_set_user_node_data(pi, sg, &u_first), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_graph_instance_set_user_node_data(pi, s_user, &u_first),
              DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_graph_instance_set_ctx_node_data(pi, p_dma, doca_dma_task_memcpy_as_task(ta)),
              DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_graph_instance_set_sub_graph_node_data(pi, sg, pi), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(pi, first, &u_first), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_sub_graph_node_data(pi, sg, si), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(pi, p_dma, doca_dma_task_memcpy_as_task(tb)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(pi, last, &u_last), DOCA_SUCCESS);
    union doca_data ud;
    ud.u64 = 1;
    ASSERT_EQ(doca_graph_instance_set_user_data(pi, ud), DOCA_SUCCESS);
    // The sub-graph's instance runs with its parent only.
    EXPECT_EQ(doca_graph_instance_submit(si), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_graph_instance_destroy(si), DOCA_ERROR_IN_USE);
    ASSERT_EQ(doca_graph_instance_submit(pi), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(4));
    EXPECT_EQ(r.j.events,
              (std::vector<std::string>{"user first", "user sub", "user last", "ok 1 0"}));

    EXPECT_EQ(doca_graph_instance_destroy(pi), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_instance_destroy(si), DOCA_SUCCESS);
    for (auto *t : {ta, tb})
        doca_task_free(doca_dma_task_memcpy_as_task(t));
    for (auto *b : {a_src, a_dst, b_dst})
        (void)doca_buf_dec_refcount(b, nullptr);
    EXPECT_EQ(doca_graph_stop(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_stop(sub), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(sub), DOCA_SUCCESS);
}

TEST(Graph, LifeCycleRefusalsAreTheDocumentedCodes)
{
    rig r;
    doca_graph *g = nullptr;
    EXPECT_EQ(doca_graph_create(nullptr, &g), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_graph_create(r.pe, nullptr), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_graph_create(r.pe, &g), DOCA_SUCCESS);
    doca_graph_node *a = nullptr, *b = nullptr, *c = nullptr;
    EXPECT_EQ(doca_graph_node_create_from_user(g, nullptr, &a), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_graph_node_create_from_user(g, user_cb, &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_user(g, user_cb, &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_user(g, user_cb, &c), DOCA_SUCCESS);
    // Cycles, direct or through other nodes, and a node on itself.
    ASSERT_EQ(doca_graph_add_dependency(g, a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, b, c), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_add_dependency(g, c, a), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_graph_add_dependency(g, b, a), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_graph_add_dependency(g, a, a), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_graph_add_dependency(g, a, c), DOCA_SUCCESS); // a diamond is fine
    // Start needs the configuration, then a context node, then that context RUNNING.
    EXPECT_EQ(doca_graph_start(g), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_graph_set_conf(g, instance_ok, nullptr, 1), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_graph_set_conf(g, instance_ok, instance_err, 0), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_graph_set_conf(g, instance_ok, instance_err, 1), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_start(g), DOCA_ERROR_BAD_STATE);
    doca_graph_node *d = nullptr;
    ASSERT_EQ(doca_graph_node_create_from_ctx(g, r.ctx[0], &d), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_start(g), DOCA_ERROR_BAD_STATE); // the DMA context is IDLE
    doca_graph_instance *inst = nullptr;
    EXPECT_EQ(doca_graph_instance_create(g, &inst), DOCA_ERROR_BAD_STATE);
    r.start();
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    // Started: no more nodes, dependencies or configuration.
    doca_graph_node *e = nullptr;
    EXPECT_EQ(doca_graph_node_create_from_user(g, user_cb, &e), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_graph_add_dependency(g, d, a), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_graph_set_conf(g, instance_ok, instance_err, 2), DOCA_ERROR_BAD_STATE);
    union doca_data ud {};
    EXPECT_EQ(doca_graph_set_user_data(g, ud), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_graph_destroy(g), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_graph_instance_create(g, &inst), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_stop(g), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_instance_destroy(inst), DOCA_ERROR_INVALID_VALUE); // stale handle
    EXPECT_EQ(doca_graph_stop(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_stop(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(g), DOCA_ERROR_INVALID_VALUE);
    // A node of a destroyed graph is refused, not used.
    doca_graph *g2 = nullptr;
    ASSERT_EQ(doca_graph_create(r.pe, &g2), DOCA_SUCCESS);
    doca_graph_node *f = nullptr;
    ASSERT_EQ(doca_graph_node_create_from_user(g2, user_cb, &f), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_add_dependency(g2, a, f), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_graph_destroy(g2), DOCA_SUCCESS);
}

TEST(Graph, NotificationModeWakesForUserNodesAndCompletions)
{
    rig r;
    r.start();
    sample_graph sg(r, 1);
    ASSERT_EQ(doca_graph_start(sg.g), DOCA_SUCCESS);
    sample_instance si(r, sg, 0, 64 * 1024, 2);
    doca_notification_handle_t fd = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(r.pe, &fd), DOCA_SUCCESS);
    const int ep = epoll_create1(EPOLL_CLOEXEC);
    ASSERT_GE(ep, 0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
    ASSERT_EQ(doca_graph_instance_submit(si.inst), DOCA_SUCCESS);
    // An event loop that only progresses when woken must still see the instance complete.
    for (int round = 0; round < 10000 && r.j.events.size() < 2; ++round) {
        ASSERT_EQ(doca_pe_request_notification(r.pe), DOCA_SUCCESS);
        epoll_event out{};
        ASSERT_EQ(epoll_wait(ep, &out, 1, 5000), 1)
            << "the engine did not wake (round " << round << ")";
        ASSERT_EQ(doca_pe_clear_notification(r.pe, fd), DOCA_SUCCESS);
        while (doca_pe_progress(r.pe) != 0) {
        }
    }
    close(ep);
    EXPECT_EQ(r.j.events, (std::vector<std::string>{"user 2", "ok 2 77"}));
}

// ---- mmap advise ----

struct advise_journal {
    std::vector<doca_error_t> statuses;
};
advise_journal *g_advise = nullptr;

void advise_cb(doca_mmap_advise_task_invalidate_cache *t, union doca_data, union doca_data)
{
    g_advise->statuses.push_back(
        doca_task_get_status(doca_mmap_advise_task_invalidate_cache_as_doca_task(t)));
}

TEST(MmapAdvise, CacheInvalidationCompletesOnALaterProgressInOrder)
{
    advise_journal j;
    g_advise = &j;
    doca_dev *dev = sc_devices::open_dev("03:00.0");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(doca_mmap_advise_cap_task_cache_invalidate_is_supported(doca_dev_as_devinfo(dev)),
              DOCA_SUCCESS);
    uint64_t max = 0;
    EXPECT_EQ(
        doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(dev), &max),
        DOCA_SUCCESS);
    EXPECT_GT(max, 0u);
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    doca_mmap_advise *ma = nullptr;
    ASSERT_EQ(doca_mmap_advise_create(dev, &ma), DOCA_SUCCESS);
    doca_ctx *ctx = doca_mmap_advise_as_ctx(ma);
    ASSERT_NE(ctx, nullptr);
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_set_conf(ma, advise_cb, nullptr, 4),
              DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_mmap_advise_task_invalidate_cache_set_conf(ma, advise_cb, advise_cb, 4),
              DOCA_SUCCESS);
    {
        dma_test::region mem(dev, 1 << 16);
        dma_test::region foreign(nullptr, 4096); // an mmap without the device
        doca_buf *b = mem.buf(0, 4096, 4096);
        doca_buf *bad = foreign.buf(0, 4096, 4096);
        union doca_data ud {};
        doca_mmap_advise_task_invalidate_cache *t = nullptr;
        EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_alloc_init(ma, b, ud, &t),
                  DOCA_ERROR_BAD_STATE);
        ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_set_conf(ma, advise_cb, advise_cb, 4),
                  DOCA_ERROR_NOT_PERMITTED);
        ASSERT_EQ(doca_mmap_advise_task_invalidate_cache_alloc_init(ma, b, ud, &t), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_get_buf(t), b);
        ASSERT_EQ(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(t)),
                  DOCA_SUCCESS);
        EXPECT_TRUE(j.statuses.empty()); // not inside submit
        for (int i = 0; i < 100 && j.statuses.empty(); ++i)
            (void)doca_pe_progress(pe);
        ASSERT_EQ(j.statuses, (std::vector<doca_error_t>{DOCA_SUCCESS}));
        // A buffer of an mmap without the device: refused by try_submit, failed by submit, and
        // the context stops by itself.
        doca_mmap_advise_task_invalidate_cache_set_buf(t, bad);
        EXPECT_EQ(doca_task_try_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(t)),
                  DOCA_ERROR_NOT_PERMITTED);
        ASSERT_EQ(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(t)),
                  DOCA_SUCCESS);
        doca_ctx_states s = DOCA_CTX_STATE_RUNNING;
        for (int i = 0; i < 100 && s != DOCA_CTX_STATE_IDLE; ++i) {
            (void)doca_pe_progress(pe);
            ASSERT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
        }
        EXPECT_EQ(s, DOCA_CTX_STATE_IDLE);
        EXPECT_EQ(j.statuses, (std::vector<doca_error_t>{DOCA_SUCCESS, DOCA_ERROR_NOT_PERMITTED}));
        doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(t));
        (void)doca_buf_dec_refcount(b, nullptr);
        (void)doca_buf_dec_refcount(bad, nullptr);
    }
    EXPECT_EQ(doca_mmap_advise_destroy(ma), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    g_advise = nullptr;
}

} // namespace

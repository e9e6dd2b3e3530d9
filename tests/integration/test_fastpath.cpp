// SPDX-License-Identifier: Apache-2.0
//
// Fast path between two processes: doca_comch_consumer (receive side) and doca_comch_producer
// (send side) on a Comch connection, through the public API only (tests/support/
// fastpath_harness.hpp). The DPU side runs the server (device 03:00.0, representor b1:00.0), the
// host side the client (device b1:00.0). Each test has its own fabric; the peer runs in a forked
// child (killed if the test bails out) that reports through its exit status and stderr.
// Processes coordinate over the control path ("cid <id>", "pid <id>", "fin", ...).
// Parameterised tests run with polling and with epoll-driven progress.
//
//   FastPathSizes.*                    host producer -> DPU consumer, 1 B .. 64 MiB, every byte
//                                      checked, over malloc / aligned_alloc / mmap memory
//   BothDirections*                    a consumer and a producer on each side at once (own
//                                      engines, or the connection's engine)
//   ImmediateData                      immediate bytes only, data + immediate bytes, data only
//   ManyToManyAcrossThreads            2 consumers + 2 producers per side, one thread and engine
//                                      each; sequence number + checksum, exactly once, in order
//   ConsumerDestroyedWhileProducerSends, ConsumerIdsAndEvents, ConsumerStopFlushesPostedReceives,
//   ConsumerRunsOnlyOnceThePeerKnowsIt, AgainClearsWithoutLocalProgress
//   *ProcessKilled*                    SIGKILL of the producer's or the consumer's process, with
//                                      the survivor on either side
//   NullArgumentsAndCapabilities, BadInputOnAConnection, ServerDisconnectInUse
// The DPA functions are experimental; they are checked to answer NOT_SUPPORTED.
#define DOCA_ALLOW_EXPERIMENTAL_API
#include <gtest/gtest.h>

#include <atomic>
#include <cstdarg>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <tuple>

#include "fastpath_harness.hpp"

using namespace sc_test;
using namespace sc_test::fp;

namespace {

constexpr auto kChildTimeout = 20000ms;

void private_fabric(const char *extra = "")
{
    static int counter = 0;
    auto *ti = ::testing::UnitTest::GetInstance()->current_test_info();
    // Both sides of the built-in machine must be visible to this process and its children.
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    use_private_fabric(std::to_string(++counter) + "-" + ti->name() + extra);
}

class FastPath : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override { private_fabric(GetParam() ? "-epoll" : "-poll"); }
    bool epoll() const { return GetParam(); }
};

class FastPathOnce : public ::testing::Test {
protected:
    void SetUp() override { private_fabric(); }
};

std::string mode_name(const ::testing::TestParamInfo<bool> &i)
{
    return i.param ? "epoll" : "polling";
}

} // namespace

// =============================================================================================
// 1. One producer (host) -> one consumer (DPU): sizes up to 64 MiB, every byte checked.
// =============================================================================================

namespace {

const std::vector<size_t> kSizes = {1, 4096, 65536, 1u << 20, 64u << 20, 1, 4096};
constexpr size_t kBig = 64u << 20;

class FastPathSizes : public ::testing::TestWithParam<std::tuple<bool, mem_kind>> {
protected:
    void SetUp() override
    {
        private_fabric((std::string(std::get<0>(GetParam()) ? "-e-" : "-p-") +
                        mem_kind_name(std::get<1>(GetParam())))
                           .c_str());
    }
};

// auto streams the 64 MiB message (2 x 64 MiB posted) and copies the rest with plain stores.
const char *copy_policy_for(mem_kind mem)
{
    return mem == mem_kind::heap ? "auto" : mem == mem_kind::aligned ? "streaming" : "cached";
}

std::string sizes_producer(fp_client &c, doca_comch_connection *conn, bool epoll, mem_kind mem)
{
    uint32_t cid = 0;
    REQ_OK(learn_remote_consumer(c, c, conn, cid));
    // Each memory kind also runs under one copy policy (SOFTCOMCH_COPY), read at producer start.
    setenv("SOFTCOMCH_COPY", copy_policy_for(mem), 1);
    producer p(conn, c.dev(),
               {.num_tasks = 4, .slots = 2, .slot_size = kBig, .mem = mem, .epoll = epoll});
    REQ_OK(start_producer(p));
    REQ_EQ(send_ctrl(c, conn, "pid " + std::to_string(p.id())), DOCA_SUCCESS);
    for (size_t seq = 0; seq < kSizes.size(); ++seq) {
        size_t n = kSizes[seq];
        doca_error_t rc = p.send(
            cid, n, [&](uint8_t *d, size_t len) { fill_pattern(d, len, pattern_seed(len, seq)); },
            nullptr, 0, {.timeout = 10000ms});
        REQ_MSG(rc == DOCA_SUCCESS, "send %zu (%zu bytes): %s", seq, n, err_name(rc).c_str());
    }
    REQ_MSG(p.wait_completions(10000ms), "%zu sends never completed", p.in_flight());
    REQ_EQ(p.ok_count, kSizes.size());
    REQ_MSG(p.err_count == 0, "send errors %s", errs_to_string(p.err_statuses).c_str());
    REQ_EQ(p.stop_and_wait(), DOCA_SUCCESS);
    REQ_EQ(p.destroy(), DOCA_SUCCESS);
    // The consumer side stops its consumer before "fin": the expired event comes here.
    REQ_MSG(expect_msg(c, "stopped", nullptr, 10000ms), "no \"stopped\"");
    REQ_MSG(c.progress_until([&] { return c.has_expired(cid); }, 5000ms),
            "no expired-consumer event for %u", cid);
    return "";
}

} // namespace

TEST_P(FastPathSizes, HostProducerToDpuConsumer)
{
    const bool ep = std::get<0>(GetParam());
    const mem_kind mem = std::get<1>(GetParam());
    fp_server s("fp-sizes");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.events_rc, DOCA_SUCCESS);
    s.set_epoll_mode(ep);
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    child_guard child(spawn([&] {
        return run_side<fp_client>("fp-sizes", ep, [&](fp_client &c, doca_comch_connection *conn) {
            return sizes_producer(c, conn, ep, mem);
        });
    }));
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(s, conn));

    uint32_t max_buf = 0;
    ASSERT_EQ(doca_comch_consumer_cap_get_max_buf_size(doca_dev_as_devinfo(s.dev()), &max_buf),
              DOCA_SUCCESS);
    EXPECT_GE(max_buf, kBig) << "the consumer cannot take the 64 MiB message";
    {
        consumer cons(
            conn, s.dev(),
            {.slots = 2, .slot_size = kBig, .mem = mem, .epoll = ep, .check_order = true});
        ASSERT_EQ(start_consumer(cons, s), "");
        EXPECT_EQ(states_to_string(cons.states), "[STARTING,RUNNING]");
        std::vector<std::string> bad;
        std::vector<uint32_t> pids;
        cons.on_recv = [&](consumer &, const recv_view &v) {
            size_t seq = pids.size();
            pids.push_back(v.producer_id);
            if (seq >= kSizes.size()) {
                bad.push_back("unexpected message " + std::to_string(seq));
                return;
            }
            if (v.len != kSizes[seq]) {
                bad.push_back(
                    strf("message %zu: %zu bytes, expected %zu", seq, v.len, kSizes[seq]));
                return;
            }
            size_t at = check_pattern(v.data, v.len, pattern_seed(v.len, seq));
            if (at != SIZE_MAX)
                bad.push_back(
                    strf("message %zu (%zu bytes): first wrong byte at %zu", seq, v.len, at));
            if (v.imm_len != 0 || v.imm != nullptr)
                bad.push_back(strf("message %zu: immediate data (%u bytes) although none was sent",
                                   seq, v.imm_len));
        };
        ASSERT_EQ(cons.post_all(), DOCA_SUCCESS);
        EXPECT_EQ(cons.posted(), 2u);
        ASSERT_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
        ASSERT_TRUE(
            cons.progress_until([&] { return cons.recv_count >= kSizes.size(); }, 15000ms, s.pe()))
            << "received " << cons.recv_count << " of " << kSizes.size();
        EXPECT_EQ(join(bad), "");
        EXPECT_EQ(join(cons.anomalies), "");
        EXPECT_EQ(cons.repost_failures, 0u) << err_name(cons.last_repost_rc);
        std::string rest;
        ASSERT_TRUE(expect_msg(s, "pid ", &rest, 5000ms));
        for (uint32_t id : pids)
            EXPECT_EQ(id, uint32_t(parse_u64(rest))) << "producer id reported by the receive task";
        // Stop flushes the two posted receives with DOCA_ERROR_SHUTDOWN.
        EXPECT_EQ(cons.posted(), 2u);
        auto t_stop = clock::now();
        // Stopping makes the 128 MiB of posted memory private again (a copy: ~1 ms per MiB on a
        // quiet machine, many times that on a loaded one), hence the long bound.
        ASSERT_EQ(cons.stop_and_wait(s.pe(), 20000ms), DOCA_SUCCESS)
            << "state " << state_name(cons.state()) << ", still posted " << cons.posted()
            << ", error completions " << errs_to_string(cons.errors) << ", after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t_stop).count()
            << " ms";
        EXPECT_EQ(errs_to_string(cons.errors), "[DOCA_ERROR_SHUTDOWN,DOCA_ERROR_SHUTDOWN]");
        EXPECT_EQ(states_to_string(cons.states), "[STARTING,RUNNING,STOPPING,IDLE]");
        EXPECT_EQ(cons.destroy(), DOCA_SUCCESS);
        ASSERT_EQ(send_ctrl(s, conn, "stopped"), DOCA_SUCCESS);
    }
    EXPECT_EQ(finish(s, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, FastPathSizes,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(mem_kind::heap, mem_kind::aligned,
                                                              mem_kind::anon)),
                         [](const auto &pinfo) {
                             const mem_kind mem = std::get<1>(pinfo.param);
                             return std::string(std::get<0>(pinfo.param) ? "epoll_" : "polling_") +
                                    (mem == mem_kind::heap      ? "malloc"
                                     : mem == mem_kind::aligned ? "aligned_alloc"
                                                                : "mmap") +
                                    "_copy_" + copy_policy_for(mem);
                         });

// =============================================================================================
// 2. Both directions at once: each side has a consumer and a producer.
// =============================================================================================

namespace {

constexpr size_t kBidirSlot = 256u << 10;
constexpr int kBidirMessages = 300;

size_t bidir_size(uint64_t salt, uint64_t seq)
{
    if (seq % 50 == 7)
        return kBidirSlot; // exactly the posted buffer
    return 1 + mix64(seq * 31 + salt) % kBidirSlot;
}

// salt: this side's; the peer uses peer_salt for what it sends here.
// shared_pe: the consumer and the producer use the connection's engine instead of their own.
std::string bidir_body(side &s, consumer_events &ev, doca_comch_connection *conn, doca_dev *dev,
                       bool epoll, uint64_t salt, uint64_t peer_salt, mem_kind mem,
                       bool shared_pe = false)
{
    doca_pe *pe = shared_pe ? s.pe() : nullptr;
    consumer cons(conn, dev,
                  {.slots = 4,
                   .slot_size = kBidirSlot,
                   .mem = mem,
                   .epoll = epoll,
                   .pe = pe,
                   .check_order = true});
    REQ_OK(start_consumer(cons, s));
    std::vector<std::string> bad;
    std::set<uint32_t> pids;
    cons.on_recv = [&](consumer &, const recv_view &v) {
        uint64_t seq = cons.recv_count - 1;
        pids.insert(v.producer_id);
        size_t want = bidir_size(peer_salt, seq);
        if (v.len != want)
            bad.push_back(strf("message %" PRIu64 ": %zu bytes, expected %zu", seq, v.len, want));
        else if (size_t at = check_pattern(v.data, v.len, pattern_seed(v.len, seq, peer_salt));
                 at != SIZE_MAX)
            bad.push_back(strf("message %" PRIu64 ": first wrong byte at %zu", seq, at));
    };
    REQ_EQ(cons.post_all(), DOCA_SUCCESS);
    REQ_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
    uint32_t remote = 0;
    REQ_OK(learn_remote_consumer(s, ev, conn, remote));
    producer p(conn, dev,
               {.num_tasks = 8,
                .slots = 8,
                .slot_size = kBidirSlot,
                .mem = mem,
                .epoll = epoll,
                .pe = pe});
    REQ_OK(start_producer(p));
    REQ_EQ(send_ctrl(s, conn, "pid " + std::to_string(p.id())), DOCA_SUCCESS);

    pe_group others({cons.pe(), s.pe()}, epoll);
    send_options so{.timeout = 10000ms, .pump = [&] {
                        others.round(0);
                        cons.retry_pending();
                    }};
    auto deadline = clock::now() + 15000ms;
    int sent = 0;
    while (sent < kBidirMessages || cons.recv_count < size_t(kBidirMessages) || p.in_flight()) {
        REQ_MSG(clock::now() < deadline, "timeout: sent %d (%zu completed), received %zu", sent,
                p.ok_count, cons.recv_count);
        if (sent < kBidirMessages) {
            size_t n = bidir_size(salt, uint64_t(sent));
            uint64_t seq = uint64_t(sent);
            doca_error_t rc = p.send(
                remote, n,
                [&](uint8_t *d, size_t len) { fill_pattern(d, len, pattern_seed(len, seq, salt)); },
                nullptr, 0, so);
            REQ_MSG(rc == DOCA_SUCCESS, "send %d: %s", sent, err_name(rc).c_str());
            ++sent;
            others.round(0);
        } else {
            others.round(1);
            p.group().round(0);
        }
        cons.retry_pending();
    }
    REQ_MSG(bad.empty(), "%s", join(bad).c_str());
    REQ_MSG(cons.anomalies.empty(), "%s", join(cons.anomalies).c_str());
    REQ_EQ(p.ok_count, size_t(kBidirMessages));
    REQ_EQ(p.err_count, 0u);
    std::string rest;
    REQ_MSG(expect_msg(s, "pid ", &rest, 5000ms), "no \"pid\"");
    REQ_EQ(pids.size(), 1u);
    REQ_EQ(*pids.begin(), uint32_t(parse_u64(rest)));
    REQ_EQ(p.stop_and_wait(), DOCA_SUCCESS);
    REQ_EQ(p.destroy(), DOCA_SUCCESS);
    REQ_EQ(cons.stop_and_wait(s.pe()), DOCA_SUCCESS);
    REQ_EQ(cons.errors.size(), 4u);
    for (auto e : cons.errors)
        REQ_EQ(e, DOCA_ERROR_SHUTDOWN);
    REQ_EQ(cons.destroy(), DOCA_SUCCESS);
    return "";
}

} // namespace

TEST_P(FastPath, BothDirectionsAtOnce)
{
    child_guard child(spawn([&] {
        return run_side<fp_server>(
            "fp-bidir", epoll(), [&](fp_server &s, doca_comch_connection *conn) {
                return bidir_body(s, s, conn, s.dev(), epoll(), 2, 1, mem_kind::anon);
            });
    }));
    fp_client c("fp-bidir");
    ASSERT_TRUE(c.ok());
    c.set_epoll_mode(epoll());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    EXPECT_EQ(bidir_body(c, c, conn, c.dev(), epoll(), 1, 2, mem_kind::heap), "");
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// The same with the consumer and the producer attached to the connection's progress engine.
TEST_P(FastPath, BothDirectionsOnTheConnectionEngine)
{
    child_guard child(spawn([&] {
        return run_side<fp_server>(
            "fp-bidir1", epoll(), [&](fp_server &s, doca_comch_connection *conn) {
                return bidir_body(s, s, conn, s.dev(), epoll(), 4, 3, mem_kind::aligned, true);
            });
    }));
    fp_client c("fp-bidir1");
    ASSERT_TRUE(c.ok());
    c.set_epoll_mode(epoll());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    EXPECT_EQ(bidir_body(c, c, conn, c.dev(), epoll(), 3, 4, mem_kind::aligned, true), "");
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// =============================================================================================
// 3. Immediate data: only immediate bytes, data + immediate bytes, data only.
// =============================================================================================

namespace {

struct imm_case {
    size_t data_len;
    uint32_t imm_len;
};
const std::vector<imm_case> kImmCases = {{0, 1},    {0, 7}, {0, 32}, {100, 32}, {4096, 16},
                                         {3000, 0}, {1, 1}, {0, 31}, {17, 8},   {4096, 32}};

std::vector<uint8_t> imm_bytes(size_t seq, uint32_t n)
{
    std::vector<uint8_t> v(n);
    fill_pattern(v.data(), n, pattern_seed(n, seq, 77));
    return v;
}

std::string imm_producer(fp_client &c, doca_comch_connection *conn, bool epoll)
{
    uint32_t cid = 0;
    REQ_OK(learn_remote_consumer(c, c, conn, cid));
    producer p(conn, c.dev(), {.num_tasks = 4, .slots = 4, .slot_size = 4096, .epoll = epoll});
    REQ_OK(start_producer(p));
    for (size_t seq = 0; seq < kImmCases.size(); ++seq) {
        auto imm = imm_bytes(seq, kImmCases[seq].imm_len);
        doca_error_t rc =
            p.send(cid, kImmCases[seq].data_len,
                   [&](uint8_t *d, size_t len) { fill_pattern(d, len, pattern_seed(len, seq)); },
                   imm.empty() ? nullptr : imm.data(), uint32_t(imm.size()), {.timeout = 10000ms});
        REQ_MSG(rc == DOCA_SUCCESS, "send %zu: %s", seq, err_name(rc).c_str());
    }
    REQ_MSG(p.wait_completions(10000ms), "sends never completed");
    REQ_EQ(p.ok_count, kImmCases.size());
    REQ_MSG(p.err_count == 0, "send errors %s", errs_to_string(p.err_statuses).c_str());
    return "";
}

} // namespace

TEST_P(FastPath, ImmediateData)
{
    child_guard child(spawn([&] {
        return run_side<fp_client>("fp-imm", epoll(),
                                   [&](fp_client &c, doca_comch_connection *conn) {
                                       return imm_producer(c, conn, epoll());
                                   });
    }));
    fp_server s("fp-imm");
    ASSERT_TRUE(s.ok());
    s.set_epoll_mode(epoll());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(s, conn));
    {
        consumer cons(conn, s.dev(),
                      {.slots = 4,
                       .slot_size = 4096,
                       .imm_data_len = 32,
                       .epoll = epoll(),
                       .check_order = true});
        uint32_t v = 0;
        ASSERT_EQ(doca_comch_consumer_get_imm_data_len(cons.handle(), &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 32u);
        ASSERT_EQ(start_consumer(cons, s), "");
        ASSERT_EQ(cons.post_all(), DOCA_SUCCESS);
        ASSERT_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
        ASSERT_TRUE(cons.progress_until([&] { return cons.received.size() >= kImmCases.size(); },
                                        10000ms, s.pe()))
            << "received " << cons.received.size();
        for (size_t seq = 0; seq < kImmCases.size(); ++seq) {
            const recv_record &r = cons.received[seq];
            SCOPED_TRACE(strf("message %zu: %zu data bytes, %u immediate bytes", seq,
                              kImmCases[seq].data_len, kImmCases[seq].imm_len));
            ASSERT_EQ(r.data.size(), kImmCases[seq].data_len);
            EXPECT_EQ(check_pattern(r.data.data(), r.data.size(), pattern_seed(r.data.size(), seq)),
                      SIZE_MAX);
            EXPECT_EQ(r.imm, imm_bytes(seq, kImmCases[seq].imm_len));
            if (kImmCases[seq].imm_len == 0)
                EXPECT_TRUE(r.imm_null) << "no immediate data was sent: get_imm_data must be NULL";
            else
                EXPECT_FALSE(r.imm_null);
            EXPECT_NE(r.producer_id, 0u);
        }
        EXPECT_EQ(join(cons.anomalies), "");
        ASSERT_EQ(cons.stop_and_wait(s.pe()), DOCA_SUCCESS);
        EXPECT_EQ(cons.destroy(), DOCA_SUCCESS);
    }
    EXPECT_EQ(finish(s, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// =============================================================================================
// 4. N:M on one connection across threads: 2 consumers and 2 producers per side, each on its
//    own thread with its own progress engine; sequence number + checksum on every message.
// =============================================================================================

namespace {

struct nm_header {
    uint32_t magic;
    uint32_t producer_id;
    uint32_t consumer_id;
    uint32_t body_len;
    uint64_t seq;
    uint64_t sum;
};
constexpr uint32_t kNmMagic = 0x46415354; // "FAST"
constexpr size_t kNmSlot = 8192;
constexpr int kNmConsumers = 2, kNmProducers = 2;

size_t nm_body_len(uint32_t pid, uint32_t cid, uint64_t seq)
{
    return mix64((uint64_t(pid) << 40) ^ (uint64_t(cid) << 20) ^ seq) %
           (kNmSlot - sizeof(nm_header) + 1);
}

// Checks one message against the per-producer sequence; "" if good.
std::string nm_check(const recv_view &v, uint32_t my_id, std::map<uint32_t, uint64_t> &next_seq)
{
    if (v.len < sizeof(nm_header))
        return strf("short message (%zu bytes)", v.len);
    nm_header h;
    std::memcpy(&h, v.data, sizeof h);
    if (h.magic != kNmMagic)
        return "bad magic";
    if (h.producer_id != v.producer_id)
        return strf("header says producer %u, task says %u", h.producer_id, v.producer_id);
    if (h.consumer_id != my_id)
        return strf("message for consumer %u landed in consumer %u", h.consumer_id, my_id);
    if (v.len != sizeof h + h.body_len)
        return strf("length %zu, header says %zu", v.len, sizeof h + h.body_len);
    uint64_t &want = next_seq[v.producer_id];
    if (h.seq != want)
        return strf("producer %u: sequence %" PRIu64 ", expected %" PRIu64, v.producer_id, h.seq,
                    want);
    ++want;
    if (checksum(v.data + sizeof h, h.body_len) != h.sum)
        return strf("producer %u seq %" PRIu64 ": checksum mismatch", v.producer_id, h.seq);
    if (h.body_len != nm_body_len(h.producer_id, h.consumer_id, h.seq))
        return "unexpected body length";
    return "";
}

void nm_fill(uint8_t *d, uint32_t pid, uint32_t cid, uint64_t seq)
{
    nm_header h{kNmMagic, pid, cid, uint32_t(nm_body_len(pid, cid, seq)), seq, 0};
    fill_pattern(d + sizeof h, h.body_len, pattern_seed(h.body_len, seq, pid));
    h.sum = checksum(d + sizeof h, h.body_len);
    std::memcpy(d, &h, sizeof h);
}

std::string nm_body(side &s, consumer_events &ev, doca_comch_connection *conn, doca_dev *dev,
                    bool epoll, int per_pair)
{
    std::vector<std::unique_ptr<consumer>> cons;
    std::vector<std::unique_ptr<producer>> prods;
    for (int i = 0; i < kNmConsumers; ++i) {
        cons.push_back(std::make_unique<consumer>(
            conn, dev,
            consumer_options{.slots = 8,
                             .slot_size = kNmSlot,
                             .mem = i ? mem_kind::heap : mem_kind::aligned,
                             .epoll = epoll}));
        REQ_MSG(cons.back()->ok(), "consumer %d: %s/%s", i,
                err_name(cons.back()->create_rc).c_str(), err_name(cons.back()->setup_rc).c_str());
    }
    for (int i = 0; i < kNmProducers; ++i) {
        prods.push_back(std::make_unique<producer>(
            conn, dev,
            producer_options{.num_tasks = 8, .slots = 8, .slot_size = kNmSlot, .epoll = epoll}));
        REQ_MSG(prods.back()->ok(), "producer %d: %s/%s", i,
                err_name(prods.back()->create_rc).c_str(),
                err_name(prods.back()->setup_rc).c_str());
    }
    std::set<uint32_t> ids;
    for (auto &c : cons)
        ids.insert(c->id());
    REQ_MSG(ids.size() == size_t(kNmConsumers) && !ids.count(0),
            "consumer ids not distinct and non-zero");

    std::mutex err_mu;
    std::vector<std::string> errors;
    auto report = [&](const std::string &e) {
        std::lock_guard<std::mutex> g(err_mu);
        errors.push_back(e);
    };
    std::atomic<int> done{0};
    std::atomic<bool> remote_known{false};
    std::vector<uint32_t> remote_ids;
    const auto deadline = clock::now() + 25000ms;
    std::vector<std::thread> threads;

    for (int i = 0; i < kNmConsumers; ++i)
        threads.emplace_back([&, i] {
            consumer &c = *cons[size_t(i)];
            std::map<uint32_t, uint64_t> next_seq;
            std::string first_bad;
            c.on_recv = [&](consumer &self, const recv_view &v) {
                std::string e = nm_check(v, self.id(), next_seq);
                if (!e.empty() && first_bad.empty())
                    first_bad = e;
            };
            doca_error_t rc = c.start();
            if (rc != DOCA_ERROR_IN_PROGRESS)
                report(strf("consumer %d start: %s", i, err_name(rc).c_str()));
            else if (!c.progress_until([&] { return c.state() == DOCA_CTX_STATE_RUNNING; },
                                       10000ms))
                report(strf("consumer %d not RUNNING (%s)", i, state_name(c.state()).c_str()));
            else if ((rc = c.post_all()) != DOCA_SUCCESS)
                report(strf("consumer %d post: %s", i, err_name(rc).c_str()));
            else {
                size_t want = size_t(kNmProducers) * size_t(per_pair);
                auto left =
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
                if (!c.progress_until([&] { return c.recv_count >= want || !first_bad.empty(); },
                                      left))
                    report(strf("consumer %d: received %zu of %zu", i, c.recv_count, want));
                if (!first_bad.empty())
                    report(strf("consumer %d: %s", i, first_bad.c_str()));
                if (next_seq.size() != size_t(kNmProducers))
                    report(strf("consumer %d: heard from %zu producers", i, next_seq.size()));
                for (auto &[pid, n] : next_seq)
                    if (n != uint64_t(per_pair))
                        report(strf("consumer %d: producer %u delivered %" PRIu64, i, pid, n));
                if (!c.anomalies.empty())
                    report(strf("consumer %d: %s", i, join(c.anomalies).c_str()));
                // Give the peer's producers time to see their last completions, then stop.
                c.progress_until([] { return false; }, 50ms);
                if (c.recv_count != want)
                    report(strf("consumer %d: %zu messages, expected exactly %zu", i, c.recv_count,
                                want));
                if ((rc = c.stop_and_wait(nullptr, 5000ms)) != DOCA_SUCCESS)
                    report(strf("consumer %d stop: %s (%s)", i, err_name(rc).c_str(),
                                state_name(c.state()).c_str()));
                for (auto e : c.errors)
                    if (e != DOCA_ERROR_SHUTDOWN)
                        report(
                            strf("consumer %d: flushed receive with %s", i, err_name(e).c_str()));
            }
            ++done;
        });

    for (int i = 0; i < kNmProducers; ++i)
        threads.emplace_back([&, i] {
            producer &p = *prods[size_t(i)];
            while (!remote_known.load() && clock::now() < deadline)
                std::this_thread::sleep_for(1ms);
            doca_error_t rc;
            if (!remote_known.load()) {
                report(strf("producer %d: remote consumers never announced", i));
            } else if ((rc = p.start()) != DOCA_SUCCESS) {
                report(strf("producer %d start: %s", i, err_name(rc).c_str()));
            } else {
                uint32_t pid = p.id();
                for (int seq = 0; seq < per_pair && clock::now() < deadline; ++seq)
                    for (uint32_t rid : remote_ids) {
                        rc =
                            p.send(rid, sizeof(nm_header) + nm_body_len(pid, rid, uint64_t(seq)),
                                   [&](uint8_t *d, size_t) { nm_fill(d, pid, rid, uint64_t(seq)); },
                                   nullptr, 0, {.timeout = 10000ms});
                        if (rc != DOCA_SUCCESS) {
                            report(strf("producer %d -> %u seq %d: %s", i, rid, seq,
                                        err_name(rc).c_str()));
                            seq = per_pair;
                            break;
                        }
                    }
                if (!p.wait_completions(5000ms))
                    report(strf("producer %d: %zu sends never completed", i, p.in_flight()));
                if (p.ok_count != size_t(per_pair) * remote_ids.size() || p.err_count)
                    report(strf("producer %d: %zu ok, %zu failed %s", i, p.ok_count, p.err_count,
                                errs_to_string(p.err_statuses).c_str()));
                if ((rc = p.stop_and_wait()) != DOCA_SUCCESS)
                    report(strf("producer %d stop: %s", i, err_name(rc).c_str()));
            }
            ++done;
        });

    // This thread drives the connection: consumer negotiation, events, control messages.
    if (!s.progress_until([&] { return ev.news_count() >= size_t(kNmConsumers); }, 10000ms))
        report(strf("only %zu remote consumers announced", ev.news_count()));
    for (auto &e : ev.news())
        remote_ids.push_back(e.id);
    remote_known = true;
    const int total = kNmConsumers + kNmProducers;
    if (!s.progress_until([&] { return done.load() == total; }, 30000ms))
        report("threads did not finish");
    for (auto &t : threads)
        t.join();
    REQ_MSG(errors.empty(), "%s", join(errors).c_str());
    for (auto &c : cons)
        REQ_EQ(c->destroy(), DOCA_SUCCESS);
    for (auto &p : prods)
        REQ_EQ(p->destroy(), DOCA_SUCCESS);
    return "";
}

} // namespace

TEST_P(FastPath, ManyToManyAcrossThreads)
{
    constexpr int per_pair = 500;
    child_guard srv(spawn([&] {
        return run_side<fp_server>("fp-nm", epoll(),
                                   [&](fp_server &s, doca_comch_connection *conn) {
                                       return nm_body(s, s, conn, s.dev(), epoll(), per_pair);
                                   });
    }));
    child_guard cli(spawn([&] {
        return run_side<fp_client>("fp-nm", epoll(),
                                   [&](fp_client &c, doca_comch_connection *conn) {
                                       return nm_body(c, c, conn, c.dev(), epoll(), per_pair);
                                   });
    }));
    EXPECT_EQ(cli.wait(40000ms), 0) << "client (host) side";
    EXPECT_EQ(srv.wait(40000ms), 0) << "server (DPU) side";
}

// =============================================================================================
// 5. Consumer destroyed while a producer sends.
// =============================================================================================

namespace {

constexpr size_t kVictimMessages = 50;

std::string doomed_consumer(fp_server &s, doca_comch_connection *conn, bool epoll)
{
    consumer cons(conn, s.dev(),
                  {.slots = 4, .slot_size = 4096, .epoll = epoll, .check_order = true});
    REQ_OK(start_consumer(cons, s));
    cons.on_recv = [](consumer &, const recv_view &) {
    };
    REQ_EQ(cons.post_all(), DOCA_SUCCESS);
    REQ_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
    REQ_MSG(
        cons.progress_until([&] { return cons.recv_count >= kVictimMessages; }, 10000ms, s.pe()),
        "received %zu", cons.recv_count);
    // The producer keeps sending while this consumer goes away.
    doca_error_t rc = doca_ctx_stop(cons.ctx());
    REQ_MSG(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS, "stop: %s", err_name(rc).c_str());
    REQ_MSG(
        cons.progress_until([&] { return cons.state() == DOCA_CTX_STATE_IDLE; }, 5000ms, s.pe()),
        "consumer stuck in %s", state_name(cons.state()).c_str());
    for (auto e : cons.errors)
        REQ_EQ(e, DOCA_ERROR_SHUTDOWN);
    REQ_MSG(cons.anomalies.empty(), "%s", join(cons.anomalies).c_str());
    REQ_EQ(cons.destroy(), DOCA_SUCCESS);
    return "";
}

} // namespace

TEST_P(FastPath, ConsumerDestroyedWhileProducerSends)
{
    child_guard child(spawn([&] {
        return run_side<fp_server>("fp-victim", epoll(),
                                   [&](fp_server &s, doca_comch_connection *conn) {
                                       return doomed_consumer(s, conn, epoll());
                                   });
    }));
    fp_client c("fp-victim");
    ASSERT_TRUE(c.ok());
    c.set_epoll_mode(epoll());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    {
        uint32_t cid = 0;
        ASSERT_EQ(learn_remote_consumer(c, c, conn, cid), "");
        producer p(conn, c.dev(),
                   {.num_tasks = 8, .slots = 8, .slot_size = 4096, .epoll = epoll()});
        ASSERT_EQ(start_producer(p), "");
        pe_group conn_pe({c.pe()}, epoll());
        send_options so{.timeout = 5000ms, .pump = [&] {
                            conn_pe.round(0);
                        }};
        std::vector<uint8_t> msg(512, 0x5a);
        doca_error_t rc = DOCA_SUCCESS;
        auto end = clock::now() + 10000ms;
        while (clock::now() < end) {
            rc = p.send(cid, msg.data(), msg.size(), nullptr, 0, so);
            if (rc != DOCA_SUCCESS)
                break;
            conn_pe.round(0);
            p.group().round(0);
        }
        EXPECT_EQ(rc, DOCA_ERROR_NOT_FOUND) << "sending to a consumer that is going away";
        EXPECT_GE(p.submitted, kVictimMessages);
        ASSERT_TRUE(p.wait_completions(5000ms, [&] { conn_pe.round(0); }))
            << p.in_flight() << " sends never completed";
        EXPECT_EQ(p.ok_count + p.err_count, p.submitted);
        if (p.err_count)
            std::fprintf(stderr, "note: %zu of %zu accepted sends failed: %s\n", p.err_count,
                         p.submitted, errs_to_string(p.err_statuses).c_str());
        ASSERT_TRUE(c.progress_until([&] { return c.has_expired(cid); }, 5000ms))
            << "no expired-consumer event";
        for (auto &e : c.expired()) {
            if (e.id == cid) {
                EXPECT_EQ(e.conn, conn);
            }
        }
        // After the expired event every send to that id is refused at once.
        for (int i = 0; i < 3; ++i)
            EXPECT_EQ(p.send(cid, msg.data(), msg.size(), nullptr, 0, {.timeout = 200ms}),
                      DOCA_ERROR_NOT_FOUND);
        ASSERT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
    }
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// =============================================================================================
// 6. Peer killed (SIGKILL) mid-stream: the survivor does not hang.
// =============================================================================================

namespace {

// The killed side: streams forever (a consumer that keeps reposting, or a producer that keeps
// sending) until SIGKILL.
template <class S> int doomed_peer(const std::string &name, bool consumes)
{
    S s(name);
    CHILD_CHECK(s.ok());
    CHILD_CHECK_EQ(s.start(), expected_start_rc(s));
    doca_comch_connection *conn = nullptr;
    CHILD_CHECK(establish(s, conn));
    if (consumes) {
        consumer cons(conn, s.dev(), {.slots = 8, .slot_size = 4096});
        std::string e = start_consumer(cons, s);
        CHILD_CHECK_MSG(e.empty(), "%s", e.c_str());
        cons.on_recv = [](consumer &, const recv_view &) {
        };
        CHILD_CHECK_EQ(cons.post_all(), DOCA_SUCCESS);
        CHILD_CHECK_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
        pe_group g({cons.pe(), s.pe()});
        for (;;) {
            g.round(1);
            cons.retry_pending();
        }
    }
    uint32_t cid = 0;
    std::string e = learn_remote_consumer(s, s, conn, cid);
    CHILD_CHECK_MSG(e.empty(), "%s", e.c_str());
    producer p(conn, s.dev(), {.num_tasks = 8, .slots = 8, .slot_size = 4096});
    e = start_producer(p);
    CHILD_CHECK_MSG(e.empty(), "%s", e.c_str());
    pe_group g({s.pe()});
    std::vector<uint8_t> msg(1000, 0xa5);
    for (;;) {
        p.send(cid, msg.data(), msg.size(), nullptr, 0, {.timeout = 1000ms, .pump = [&] {
                                                             g.round(0);
                                                         }});
        g.round(0);
    }
}

bool side_saw_disconnect(fp_server &s)
{
    return !s.disconnected.empty();
}
bool side_saw_disconnect(fp_client &c)
{
    return c.state() != DOCA_CTX_STATE_RUNNING;
}

// Survivor of type S (parent), killed peer of type K (child). `survivor_consumes`: the survivor
// holds the consumer (the killed peer produces), otherwise the survivor produces.
template <class S, class K> void peer_killed(const char *name, bool survivor_consumes, bool epoll)
{
    std::unique_ptr<S> s;
    std::unique_ptr<child_guard> child;
    if constexpr (std::is_same_v<S, fp_server>) {
        s = std::make_unique<S>(name);
        ASSERT_TRUE(s->ok());
        s->set_epoll_mode(epoll);
        ASSERT_EQ(s->start(), DOCA_SUCCESS);
        child = std::make_unique<child_guard>(
            spawn([&] { return doomed_peer<K>(name, !survivor_consumes); }));
    } else {
        child = std::make_unique<child_guard>(
            spawn([&] { return doomed_peer<K>(name, !survivor_consumes); }));
        s = std::make_unique<S>(name);
        ASSERT_TRUE(s->ok());
        s->set_epoll_mode(epoll);
        ASSERT_EQ(s->start(), DOCA_ERROR_IN_PROGRESS);
    }
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(*s, conn));

    if (survivor_consumes) {
        consumer cons(conn, s->dev(),
                      {.slots = 8, .slot_size = 4096, .epoll = epoll, .check_order = true});
        ASSERT_EQ(start_consumer(cons, *s), "");
        cons.on_recv = [](consumer &, const recv_view &) {
        };
        ASSERT_EQ(cons.post_all(), DOCA_SUCCESS);
        ASSERT_EQ(send_ctrl(*s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
        ASSERT_TRUE(cons.progress_until([&] { return cons.recv_count >= 200; }, 10000ms, s->pe()))
            << "received " << cons.recv_count;
        EXPECT_EQ(child->kill_and_wait(), 128 + SIGKILL);
        // Every posted receive ends with an error; nothing hangs.
        EXPECT_TRUE(cons.progress_until([&] { return cons.posted() == 0; }, 5000ms, s->pe()))
            << cons.posted() << " receives still posted after the producer's process died";
        EXPECT_FALSE(cons.errors.empty());
        for (auto e : cons.errors)
            EXPECT_EQ(e, DOCA_ERROR_CONNECTION_ABORTED) << "all: " << errs_to_string(cons.errors);
        if (cons.repost_failures)
            std::fprintf(stderr, "note: %zu reposts refused (last: %s)\n", cons.repost_failures,
                         err_name(cons.last_repost_rc).c_str());
        EXPECT_EQ(join(cons.anomalies), "");
        EXPECT_TRUE(s->progress_until([&] { return side_saw_disconnect(*s); }, 5000ms))
            << "the connection owner did not see the peer go";
        doca_error_t rc = doca_ctx_stop(cons.ctx());
        EXPECT_TRUE(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS ||
                    rc == DOCA_ERROR_BAD_STATE)
            << err_name(rc);
        EXPECT_TRUE(cons.progress_until([&] { return cons.state() == DOCA_CTX_STATE_IDLE; }, 5000ms,
                                        s->pe()))
            << "consumer stuck in " << state_name(cons.state());
        EXPECT_EQ(cons.destroy(), DOCA_SUCCESS);
    } else {
        uint32_t cid = 0;
        ASSERT_EQ(learn_remote_consumer(*s, *s, conn, cid), "");
        producer p(conn, s->dev(), {.num_tasks = 8, .slots = 8, .slot_size = 4096, .epoll = epoll});
        ASSERT_EQ(start_producer(p), "");
        pe_group conn_pe({s->pe()}, epoll);
        send_options so{.timeout = 5000ms, .pump = [&] {
                            conn_pe.round(0);
                        }};
        std::vector<uint8_t> msg(1000, 0x3c);
        auto end = clock::now() + 10000ms;
        while (p.ok_count < 200 && clock::now() < end) {
            ASSERT_EQ(p.send(cid, msg.data(), msg.size(), nullptr, 0, so), DOCA_SUCCESS);
            p.group().round(0);
        }
        ASSERT_GE(p.ok_count, 200u);
        EXPECT_EQ(child->kill_and_wait(), 128 + SIGKILL);
        // Sending goes on until the library refuses; it must not stay at DOCA_ERROR_AGAIN.
        doca_error_t rc = DOCA_SUCCESS;
        auto stop_at = clock::now() + 8000ms;
        while (rc == DOCA_SUCCESS && clock::now() < stop_at) {
            rc = p.send(cid, msg.data(), msg.size(), nullptr, 0, so);
            p.group().round(0);
        }
        EXPECT_TRUE(rc == DOCA_ERROR_NOT_CONNECTED || rc == DOCA_ERROR_NOT_FOUND)
            << "send after the consumer's process died: " << err_name(rc);
        EXPECT_TRUE(p.wait_completions(5000ms, [&] { conn_pe.round(0); }))
            << p.in_flight() << " sends never completed";
        EXPECT_TRUE(s->progress_until([&] { return side_saw_disconnect(*s); }, 5000ms))
            << "the connection owner did not see the peer go";
        EXPECT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
    }
    if constexpr (std::is_same_v<S, fp_client>) {
        EXPECT_TRUE(s->progress_until([&] { return s->state() == DOCA_CTX_STATE_IDLE; }, 5000ms))
            << "client stuck in " << state_name(s->state());
    } else {
        EXPECT_EQ(s->disconnected.size(), 1u);
        EXPECT_EQ(s->state(), DOCA_CTX_STATE_RUNNING);
        EXPECT_EQ(s->stop_and_wait(), DOCA_SUCCESS);
    }
}

} // namespace

TEST_P(FastPath, ProducerProcessKilled_DpuConsumerSurvives)
{
    peer_killed<fp_server, fp_client>("fp-kill-1", true, epoll());
}

TEST_P(FastPath, ConsumerProcessKilled_HostProducerSurvives)
{
    peer_killed<fp_client, fp_server>("fp-kill-2", false, epoll());
}

TEST_P(FastPath, ProducerProcessKilled_HostConsumerSurvives)
{
    peer_killed<fp_client, fp_server>("fp-kill-3", true, epoll());
}

TEST_P(FastPath, ConsumerProcessKilled_DpuProducerSurvives)
{
    peer_killed<fp_server, fp_client>("fp-kill-4", false, epoll());
}

// =============================================================================================
// Stop: posted receives are flushed with DOCA_ERROR_SHUTDOWN; IDLE only once all are freed.
// =============================================================================================

TEST_P(FastPath, ConsumerStopFlushesPostedReceives)
{
    child_guard child(spawn([&] {
        return run_side<fp_client>(
            "fp-flush", epoll(), [&](fp_client &c, doca_comch_connection *conn) -> std::string {
                uint32_t cid = 0;
                REQ_OK(learn_remote_consumer(c, c, conn, cid));
                REQ_MSG(c.progress_until([&] { return c.has_expired(cid); }, 10000ms),
                        "no expired event for %u", cid);
                return "";
            });
    }));
    fp_server s("fp-flush");
    ASSERT_TRUE(s.ok());
    s.set_epoll_mode(epoll());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(s, conn));
    {
        consumer cons(conn, s.dev(),
                      {.slots = 4, .slot_size = 4096, .hold_errors = true, .epoll = epoll()});
        ASSERT_EQ(start_consumer(cons, s), "");
        ASSERT_EQ(cons.post_all(), DOCA_SUCCESS);
        size_t inflight = 0;
        EXPECT_EQ(doca_ctx_get_num_inflight_tasks(cons.ctx(), &inflight), DOCA_SUCCESS);
        EXPECT_EQ(inflight, 4u);
        ASSERT_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
        EXPECT_EQ(doca_ctx_stop(cons.ctx()), DOCA_ERROR_IN_PROGRESS);
        ASSERT_TRUE(cons.progress_until([&] { return cons.errors.size() >= 4; }, 5000ms, s.pe()));
        EXPECT_EQ(
            errs_to_string(cons.errors),
            "[DOCA_ERROR_SHUTDOWN,DOCA_ERROR_SHUTDOWN,DOCA_ERROR_SHUTDOWN,DOCA_ERROR_SHUTDOWN]");
        EXPECT_EQ(join(cons.anomalies), "") << "buffers must come back untouched";
        // Flushed through their callbacks: IDLE, although the program has not freed them yet
        // (they stay the program's to free).
        EXPECT_TRUE(cons.progress_until([&] { return cons.state() == DOCA_CTX_STATE_IDLE; }, 5000ms,
                                        s.pe()));
        EXPECT_EQ(states_to_string(cons.states), "[STARTING,RUNNING,STOPPING,IDLE]");
        cons.free_held();
        EXPECT_EQ(cons.destroy(), DOCA_SUCCESS);
    }
    EXPECT_EQ(finish(s, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// Several consumers on one connection: distinct non-zero ids, each announced to the peer (the
// same ids), and each reported expired when it goes.
TEST_P(FastPath, ConsumerIdsAndEvents)
{
    child_guard child(spawn([&] {
        return run_side<fp_server>(
            "fp-ids", epoll(), [&](fp_server &s, doca_comch_connection *conn) -> std::string {
                std::string rest;
                REQ_MSG(expect_msg(s, "ids ", &rest, 10000ms), "no \"ids\"");
                std::set<uint32_t> want;
                std::istringstream in(rest);
                for (uint32_t v; in >> v;)
                    want.insert(v);
                REQ_MSG(s.progress_until([&] { return s.news_count() >= want.size(); }, 5000ms),
                        "%zu of %zu new events", s.news_count(), want.size());
                std::set<uint32_t> got;
                for (auto &e : s.news()) {
                    got.insert(e.id);
                    REQ_MSG(e.conn == conn, "event on another connection");
                }
                REQ_MSG(got == want,
                        "new-consumer events carry other ids than doca_comch_consumer_get_id");
                REQ_MSG(
                    s.progress_until([&] { return s.expired().size() >= want.size(); }, 10000ms),
                    "%zu of %zu expired events", s.expired().size(), want.size());
                std::set<uint32_t> gone;
                for (auto &e : s.expired())
                    gone.insert(e.id);
                REQ_MSG(gone == want, "expired events carry other ids");
                return "";
            });
    }));
    fp_client c("fp-ids");
    ASSERT_TRUE(c.ok());
    c.set_epoll_mode(epoll());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    {
        std::vector<std::unique_ptr<consumer>> cons;
        std::set<uint32_t> ids;
        std::string list;
        for (int i = 0; i < 3; ++i) {
            cons.push_back(std::make_unique<consumer>(
                conn, c.dev(), consumer_options{.slots = 1, .epoll = epoll()}));
            ASSERT_EQ(start_consumer(*cons.back(), c), "");
            uint32_t v = 99;
            EXPECT_EQ(doca_comch_consumer_get_imm_data_len(cons.back()->handle(), &v),
                      DOCA_SUCCESS);
            EXPECT_EQ(v, 0u) << "default immediate-data length";
            ids.insert(cons.back()->id());
            list += std::to_string(cons.back()->id()) + " ";
        }
        EXPECT_EQ(ids.size(), 3u);
        EXPECT_EQ(ids.count(0), 0u);
        ASSERT_EQ(send_ctrl(c, conn, "ids " + list), DOCA_SUCCESS);
        for (auto &k : cons) {
            EXPECT_EQ(k->stop_and_wait(c.pe()), DOCA_SUCCESS);
            EXPECT_EQ(k->destroy(), DOCA_SUCCESS);
        }
    }
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// A consumer becomes RUNNING only once the peer has heard of it: while the peer's process does
// not progress its connection, the consumer stays STARTING however much this side progresses.
TEST_F(FastPathOnce, ConsumerRunsOnlyOnceThePeerKnowsIt)
{
    gate wake; // the peer progresses nothing until this side opens it
    child_guard child(spawn([&] {
        return run_side<fp_server>(
            "fp-ack", false, [&](fp_server &s, doca_comch_connection *conn) -> std::string {
                REQ_MSG(expect_msg(s, "nap", nullptr, 10000ms), "no \"nap\"");
                REQ_EQ(send_ctrl(s, conn, "napping"), DOCA_SUCCESS);
                REQ_MSG(wake.wait(10000ms), "never woken"); // no progress at all meanwhile
                uint32_t cid = 0;
                REQ_OK(learn_remote_consumer(s, s, conn, cid));
                return "";
            });
    }));
    fp_client c("fp-ack");
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    ASSERT_EQ(send_ctrl(c, conn, "nap"), DOCA_SUCCESS);
    ASSERT_TRUE(expect_msg(c, "napping", nullptr, 5000ms));
    auto t0 = clock::now();
    {
        consumer cons(conn, c.dev(), {.slots = 1});
        ASSERT_TRUE(cons.ok());
        ASSERT_EQ(cons.start(), DOCA_ERROR_IN_PROGRESS);
        ASSERT_EQ(send_ctrl(c, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
        cons.progress_until([] { return false; }, 250ms, c.pe());
        EXPECT_EQ(cons.state(), DOCA_CTX_STATE_STARTING)
            << "RUNNING before the peer could learn the consumer's id";
        EXPECT_EQ(states_to_string(cons.states), "[STARTING]");
        wake.open();
        ASSERT_TRUE(cons.wait_running(c.pe(), 5000ms)) << "state " << state_name(cons.state());
        EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0).count(),
                  250);
        EXPECT_EQ(cons.stop_and_wait(c.pe()), DOCA_SUCCESS);
        EXPECT_EQ(cons.destroy(), DOCA_SUCCESS);
    }
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// doca_task_submit returns DOCA_ERROR_AGAIN while the consumer has no buffer posted; a retry
// loop that only sleeps (no progress anywhere on this side) succeeds once the peer posts one.
TEST_F(FastPathOnce, AgainClearsWithoutLocalProgress)
{
    child_guard child(spawn([&] {
        return run_side<fp_server>(
            "fp-again", false, [&](fp_server &s, doca_comch_connection *conn) -> std::string {
                consumer cons(conn, s.dev(), {.slots = 1, .slot_size = 4096});
                REQ_OK(start_consumer(cons, s));
                REQ_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
                REQ_MSG(expect_msg(s, "go", nullptr, 10000ms), "no \"go\"");
                std::this_thread::sleep_for(200ms);
                REQ_EQ(cons.post(0), DOCA_SUCCESS);
                REQ_MSG(
                    cons.progress_until([&] { return cons.received.size() == 1; }, 10000ms, s.pe()),
                    "nothing came");
                auto &r = cons.received.front();
                REQ_EQ(r.data.size(), 300u);
                REQ_EQ(check_pattern(r.data.data(), 300, pattern_seed(300, 0)), SIZE_MAX);
                REQ_EQ(send_ctrl(s, conn, "rx"), DOCA_SUCCESS);
                return "";
            });
    }));
    fp_client c("fp-again");
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    {
        uint32_t cid = 0;
        ASSERT_EQ(learn_remote_consumer(c, c, conn, cid), "");
        producer p(conn, c.dev(), {.num_tasks = 2, .slots = 1, .slot_size = 4096});
        ASSERT_EQ(start_producer(p), "");
        fill_pattern(p.mem().base(), 300, pattern_seed(300, 0));
        doca_buf *buf = p.mem().get_by_data(0, 300);
        ASSERT_NE(buf, nullptr);
        doca_comch_producer_task_send *t = nullptr;
        ASSERT_EQ(doca_comch_producer_task_send_alloc_init(p.handle(), buf, nullptr, 0, cid, &t),
                  DOCA_SUCCESS);
        doca_task *task = doca_comch_producer_task_send_as_task(t);
        union doca_data ud;
        ud.u64 = producer::kExternal; // the harness's callback releases buf and frees the task
        doca_task_set_user_data(task, ud);
        for (int i = 0; i < 20; ++i) {
            ASSERT_EQ(doca_task_submit(task), DOCA_ERROR_AGAIN)
                << "no buffer is posted yet (try " << i << ")";
            std::this_thread::sleep_for(1ms);
        }
        // The peer's 200 ms start after "go" reaches it, so after this.
        auto t0 = clock::now();
        ASSERT_EQ(send_ctrl(c, conn, "go"), DOCA_SUCCESS);
        // From here on: no doca_pe_progress on this side until the submit went through.
        doca_error_t rc;
        int tries = 0;
        while ((rc = doca_task_submit(task)) == DOCA_ERROR_AGAIN && clock::now() - t0 < 5000ms) {
            ++tries;
            std::this_thread::sleep_for(200us);
        }
        ASSERT_EQ(rc, DOCA_SUCCESS) << "after " << tries << " AGAIN retries";
        auto waited =
            std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0).count();
        EXPECT_GE(waited, 100) << "the consumer only posts 200 ms after \"go\"";
        // The completion arrives through the producer's engine; the send task goes back to the pool.
        ASSERT_TRUE(p.group().until([&] { return p.ok_count + p.err_count == 1; }, 5000ms));
        EXPECT_EQ(p.ok_count, 1u) << errs_to_string(p.err_statuses);
        ASSERT_TRUE(expect_msg(c, "rx", nullptr, 10000ms));
        ASSERT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
    }
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// =============================================================================================
// 7. Bad input.
// =============================================================================================

// Calls that need no connection: NULL arguments, capabilities, the DPA functions.
TEST_F(FastPathOnce, NullArgumentsAndCapabilities)
{
    doca_dev *dev = open_dev("b1:00.0");
    ASSERT_NE(dev, nullptr);
    const doca_devinfo *di = doca_dev_as_devinfo(dev);
    ASSERT_NE(di, nullptr);
    uint32_t v = 0;

    // Capabilities.
    EXPECT_EQ(doca_comch_consumer_cap_is_supported(di), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_producer_cap_is_supported(di), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_consumer_cap_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_cap_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_cap_get_max_imm_data_len(di, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 32u);
    EXPECT_EQ(doca_comch_consumer_cap_get_max_buf_list_len(di, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1u);
    EXPECT_EQ(doca_comch_producer_cap_get_max_buf_list_len(di, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1u);
    using cap_fn = doca_error_t (*)(const doca_devinfo *, uint32_t *);
    for (cap_fn f :
         {doca_comch_consumer_cap_get_max_num_tasks, doca_comch_consumer_cap_get_max_buf_size,
          doca_comch_consumer_cap_get_max_buf_list_len, doca_comch_consumer_cap_get_max_consumers,
          doca_comch_consumer_cap_get_max_imm_data_len, doca_comch_producer_cap_get_max_num_tasks,
          doca_comch_producer_cap_get_max_buf_size, doca_comch_producer_cap_get_max_buf_list_len,
          doca_comch_producer_cap_get_max_producers}) {
        v = 0;
        EXPECT_EQ(f(di, &v), DOCA_SUCCESS);
        EXPECT_GT(v, 0u);
        EXPECT_EQ(f(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(f(di, nullptr), DOCA_ERROR_INVALID_VALUE);
    }

    // Consumer / producer functions with NULL objects.
    doca_comch_consumer *cons = nullptr;
    doca_comch_producer *prod = nullptr;
    EXPECT_EQ(doca_comch_consumer_create(nullptr, nullptr, &cons), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cons, nullptr);
    EXPECT_EQ(doca_comch_producer_create(nullptr, &prod), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(prod, nullptr);
    EXPECT_EQ(doca_comch_consumer_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_get_id(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_get_id(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_get_imm_data_len(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_set_imm_data_len(nullptr, 4), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_as_ctx(nullptr), nullptr);
    EXPECT_EQ(doca_comch_producer_as_ctx(nullptr), nullptr);
    auto rcb = [](doca_comch_consumer_task_post_recv *, union doca_data, union doca_data) {
    };
    auto scb = [](doca_comch_producer_task_send *, union doca_data, union doca_data) {
    };
    EXPECT_EQ(doca_comch_consumer_task_post_recv_set_conf(nullptr, rcb, rcb, 4),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_task_send_set_conf(nullptr, scb, scb, 4),
              DOCA_ERROR_INVALID_VALUE);
    doca_comch_consumer_task_post_recv *rt = nullptr;
    doca_comch_producer_task_send *st = nullptr;
    EXPECT_EQ(doca_comch_consumer_task_post_recv_alloc_init(nullptr, nullptr, &rt),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_task_send_alloc_init(nullptr, nullptr, nullptr, 0, 1, &st),
              DOCA_ERROR_INVALID_VALUE);
    // Task accessors with NULL.
    EXPECT_EQ(doca_comch_consumer_task_post_recv_get_buf(nullptr), nullptr);
    EXPECT_EQ(doca_comch_consumer_task_post_recv_get_producer_id(nullptr), 0u);
    EXPECT_EQ(doca_comch_consumer_task_post_recv_get_imm_data(nullptr), nullptr);
    EXPECT_EQ(doca_comch_consumer_task_post_recv_get_imm_data_len(nullptr), 0u);
    EXPECT_EQ(doca_comch_consumer_task_post_recv_as_task(nullptr), nullptr);
    doca_comch_consumer_task_post_recv_set_buf(nullptr, nullptr); // must not crash
    EXPECT_EQ(doca_comch_producer_task_send_get_buf(nullptr), nullptr);
    EXPECT_EQ(doca_comch_producer_task_send_get_consumer_id(nullptr), 0u);
    EXPECT_EQ(doca_comch_producer_task_send_get_imm_data(nullptr), nullptr);
    EXPECT_EQ(doca_comch_producer_task_send_get_imm_data_len(nullptr), 0u);
    EXPECT_EQ(doca_comch_producer_task_send_as_task(nullptr), nullptr);
    doca_comch_producer_task_send_set_buf(nullptr, nullptr);
    doca_comch_producer_task_send_set_consumer_id(nullptr, 1);
    doca_comch_producer_task_send_set_imm_data(nullptr, nullptr, 0);

    // DPA: not supported (INVALID_VALUE for NULL).
    doca_comch_consumer_completion *cc = nullptr;
    EXPECT_EQ(doca_comch_consumer_completion_create(&cc), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(cc, nullptr);
    EXPECT_EQ(doca_comch_consumer_completion_create(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_start(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_stop(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_set_dpa_thread(nullptr, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_get_dpa_handle(nullptr, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_set_max_num_consumers(nullptr, 4),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_get_max_num_consumers(nullptr, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_set_max_num_recv(nullptr, 4),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_get_max_num_recv(nullptr, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_set_imm_data_len(nullptr, 4),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_completion_get_imm_data_len(nullptr, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_set_completion(nullptr, nullptr, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_set_dev_max_num_recv(nullptr, 4), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_get_dpa_handle(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_set_dev_max_num_send(nullptr, 4), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_dpa_completion_attach(nullptr, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_get_dpa_handle(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_get_gpu_handle(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_get_gpu_handle(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);

    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

namespace {

// The DPU side of the bad-input test: one consumer accepting 8 immediate bytes with a single
// 4 KiB buffer, reposted after each message; every message is reported as
// "rx <len> <producer id> <imm len> <checksum>".
std::string reporting_consumer(fp_server &s, doca_comch_connection *conn)
{
    consumer cons(conn, s.dev(), {.slots = 1, .slot_size = 4096, .imm_data_len = 8});
    REQ_OK(start_consumer(cons, s));
    std::vector<std::string> reports;
    cons.on_recv = [&](consumer &, const recv_view &v) {
        reports.push_back(strf("rx %zu %u %u %" PRIu64, v.len, v.producer_id, v.imm_len,
                               checksum(v.data, v.len)));
    };
    REQ_EQ(cons.post_all(), DOCA_SUCCESS);
    REQ_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
    pe_group g({cons.pe(), s.pe()});
    auto end = clock::now() + 15000ms;
    for (;;) {
        REQ_MSG(clock::now() < end, "no \"done\"");
        g.round(1);
        cons.retry_pending();
        for (auto &r : reports)
            REQ_EQ(send_ctrl(s, conn, r), DOCA_SUCCESS);
        reports.clear();
        if (expect_msg(s, "done", nullptr, 0ms))
            break;
    }
    REQ_EQ(cons.stop_and_wait(s.pe()), DOCA_SUCCESS);
    REQ_EQ(cons.destroy(), DOCA_SUCCESS);
    REQ_EQ(send_ctrl(s, conn, "stopped"), DOCA_SUCCESS);
    return "";
}

} // namespace

TEST_F(FastPathOnce, BadInputOnAConnection)
{
    child_guard child(spawn([&] {
        return run_side<fp_server>("fp-bad", false, [&](fp_server &s, doca_comch_connection *conn) {
            return reporting_consumer(s, conn);
        });
    }));
    fp_client c("fp-bad");
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    doca_dev *dev = c.dev();
    auto rcb = [](doca_comch_consumer_task_post_recv *, union doca_data, union doca_data) {
    };
    auto scb = [](doca_comch_producer_task_send *, union doca_data, union doca_data) {
    };
    {
        // Creation with bad arguments.
        region started(dev, 8192);
        region unstarted(dev, 8192, {.start = false});
        region other(dev, 8192);
        ASSERT_TRUE(started.ok() && unstarted.ok() && other.ok());
        doca_comch_consumer *k = nullptr;
        EXPECT_EQ(doca_comch_consumer_create(conn, unstarted.mmap(), &k), DOCA_ERROR_INVALID_VALUE)
            << "consumer over an mmap that is not started";
        EXPECT_EQ(k, nullptr);
        EXPECT_EQ(doca_comch_consumer_create(conn, nullptr, &k), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_create(nullptr, started.mmap(), &k),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_create(conn, started.mmap(), nullptr),
                  DOCA_ERROR_INVALID_VALUE);
        doca_comch_producer *pr = nullptr;
        EXPECT_EQ(doca_comch_producer_create(conn, nullptr), DOCA_ERROR_INVALID_VALUE);

        // A consumer, configured by hand.
        ASSERT_EQ(doca_comch_consumer_create(conn, started.mmap(), &k), DOCA_SUCCESS);
        uint32_t v = 0;
        EXPECT_EQ(doca_comch_consumer_get_id(k, nullptr), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_get_id(k, &v), DOCA_SUCCESS);
        EXPECT_NE(v, 0u);
        EXPECT_EQ(doca_comch_consumer_get_imm_data_len(k, nullptr), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_set_imm_data_len(k, 33), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_set_imm_data_len(k, 32), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_consumer_get_imm_data_len(k, &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 32u);
        uint32_t max_tasks = 0;
        ASSERT_EQ(doca_comch_consumer_cap_get_max_num_tasks(doca_dev_as_devinfo(dev), &max_tasks),
                  DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_set_conf(k, nullptr, rcb, 2),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_set_conf(k, rcb, nullptr, 2),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_set_conf(k, rcb, rcb, 0),
                  DOCA_ERROR_INVALID_VALUE);
        if (max_tasks < UINT32_MAX) {
            EXPECT_EQ(doca_comch_consumer_task_post_recv_set_conf(k, rcb, rcb, max_tasks + 1),
                      DOCA_ERROR_INVALID_VALUE);
        }
        EXPECT_EQ(doca_comch_consumer_task_post_recv_set_conf(k, rcb, rcb, 2), DOCA_SUCCESS);
        // No DPA on the emulated device.
        doca_dpa_dev_comch_consumer_t kh = 0;
        EXPECT_EQ(doca_comch_consumer_set_dev_max_num_recv(k, 4), DOCA_ERROR_NOT_SUPPORTED);
        EXPECT_EQ(doca_comch_consumer_get_dpa_handle(k, &kh), DOCA_ERROR_NOT_SUPPORTED);
        // Nor a GPU (DOCA 3.2's GPU data path).
        doca_comch_gpu_consumer *kg = nullptr;
        EXPECT_EQ(doca_comch_consumer_get_gpu_handle(k, &kg), DOCA_ERROR_NOT_SUPPORTED);
        EXPECT_EQ(kg, nullptr);
        doca_ctx *kctx = doca_comch_consumer_as_ctx(k);
        ASSERT_NE(kctx, nullptr);
        EXPECT_EQ(doca_comch_consumer_as_ctx(k), kctx);
        // Not attached to a progress engine.
        EXPECT_EQ(doca_ctx_start(kctx), DOCA_ERROR_NOT_CONNECTED);
        doca_pe *kpe = nullptr;
        ASSERT_EQ(doca_pe_create(&kpe), DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_connect_ctx(kpe, kctx), DOCA_SUCCESS);
        doca_buf *inside = started.get_by_addr(0, 4096);
        doca_buf *outside = other.get_by_addr(0, 4096);
        ASSERT_NE(inside, nullptr);
        ASSERT_NE(outside, nullptr);
        doca_comch_consumer_task_post_recv *rt = nullptr;
        EXPECT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, inside, &rt),
                  DOCA_ERROR_BAD_STATE)
            << "IDLE";
        EXPECT_EQ(doca_ctx_start(kctx), DOCA_ERROR_IN_PROGRESS);
        // STARTING until progress: configuration is frozen, no receives yet, no destroy.
        EXPECT_EQ(doca_comch_consumer_set_imm_data_len(k, 8), DOCA_ERROR_BAD_STATE);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_set_conf(k, rcb, rcb, 2),
                  DOCA_ERROR_BAD_STATE);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, inside, &rt),
                  DOCA_ERROR_BAD_STATE)
            << "STARTING";
        EXPECT_EQ(doca_comch_consumer_destroy(k), DOCA_ERROR_IN_USE);
        pe_group both({kpe, c.pe()});
        ASSERT_TRUE(both.until(
            [&] {
                doca_ctx_states st = DOCA_CTX_STATE_IDLE;
                doca_ctx_get_state(kctx, &st);
                return st == DOCA_CTX_STATE_RUNNING;
            },
            5000ms));
        EXPECT_EQ(doca_comch_consumer_destroy(k), DOCA_ERROR_IN_USE);
        EXPECT_EQ(doca_comch_consumer_set_imm_data_len(k, 8), DOCA_ERROR_BAD_STATE);
        // Receive tasks: NULLs, a buf of another mmap, pool exhaustion, accessors.
        EXPECT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, nullptr, &rt),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, inside, nullptr),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, outside, &rt),
                  DOCA_ERROR_INVALID_VALUE)
            << "buf outside the consumer's mmap";
        doca_comch_consumer_task_post_recv *t1 = nullptr, *t2 = nullptr, *t3 = nullptr;
        ASSERT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, inside, &t1), DOCA_SUCCESS);
        ASSERT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, inside, &t2), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_alloc_init(k, inside, &t3),
                  DOCA_ERROR_NO_MEMORY);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_get_buf(t1), inside);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_get_producer_id(t1), 0u) << "not completed";
        EXPECT_EQ(doca_comch_consumer_task_post_recv_get_imm_data_len(t1), 0u);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_get_imm_data(t1), nullptr);
        doca_buf *inside2 = started.get_by_addr(4096, 4096);
        ASSERT_NE(inside2, nullptr);
        doca_comch_consumer_task_post_recv_set_buf(t2, inside2);
        EXPECT_EQ(doca_comch_consumer_task_post_recv_get_buf(t2), inside2);
        EXPECT_NE(doca_comch_consumer_task_post_recv_as_task(t1), nullptr);
        EXPECT_EQ(doca_task_get_ctx(doca_comch_consumer_task_post_recv_as_task(t1)), kctx);
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(t1));
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(t2));
        doca_error_t stop_rc = doca_ctx_stop(kctx);
        EXPECT_TRUE(stop_rc == DOCA_SUCCESS || stop_rc == DOCA_ERROR_IN_PROGRESS)
            << err_name(stop_rc);
        EXPECT_TRUE(both.until(
            [&] {
                doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
                doca_ctx_get_state(kctx, &st);
                return st == DOCA_CTX_STATE_IDLE;
            },
            5000ms));
        EXPECT_EQ(doca_comch_consumer_destroy(k), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(kpe), DOCA_SUCCESS);
        doca_buf_dec_refcount(inside, nullptr);
        doca_buf_dec_refcount(inside2, nullptr);
        doca_buf_dec_refcount(outside, nullptr);

        // A producer, configured by hand.
        ASSERT_EQ(doca_comch_producer_create(conn, &pr), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_producer_get_id(pr, nullptr), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_producer_get_id(pr, &v), DOCA_SUCCESS);
        EXPECT_NE(v, 0u);
        EXPECT_EQ(doca_comch_producer_task_send_set_conf(pr, nullptr, scb, 2),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_producer_task_send_set_conf(pr, scb, nullptr, 2),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_producer_task_send_set_conf(pr, scb, scb, 0),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_producer_task_send_set_conf(pr, scb, scb, 2), DOCA_SUCCESS);
        doca_dpa_dev_comch_producer_t ph = 0;
        EXPECT_EQ(doca_comch_producer_set_dev_max_num_send(pr, 4), DOCA_ERROR_NOT_SUPPORTED);
        EXPECT_EQ(doca_comch_producer_get_dpa_handle(pr, &ph), DOCA_ERROR_NOT_SUPPORTED);
        doca_pe *ppe = nullptr;
        ASSERT_EQ(doca_pe_create(&ppe), DOCA_SUCCESS);
        doca_ctx *pctx = doca_comch_producer_as_ctx(pr);
        ASSERT_EQ(doca_pe_connect_ctx(ppe, pctx), DOCA_SUCCESS);
        doca_buf *src = started.get_by_data(0, 64);
        ASSERT_NE(src, nullptr);
        doca_comch_producer_task_send *st = nullptr;
        uint8_t imm[40] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, src, nullptr, 0, 1, &st),
                  DOCA_ERROR_BAD_STATE)
            << "IDLE";
        ASSERT_EQ(doca_ctx_start(pctx), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_producer_task_send_set_conf(pr, scb, scb, 2), DOCA_ERROR_BAD_STATE);
        EXPECT_EQ(doca_comch_producer_destroy(pr), DOCA_ERROR_IN_USE);
        EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, nullptr, nullptr, 0, 1, &st),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, src, nullptr, 0, 1, nullptr),
                  DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, src, imm, 33, 1, &st),
                  DOCA_ERROR_INVALID_VALUE)
            << "more than 32 immediate bytes";
        EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, src, nullptr, 4, 1, &st),
                  DOCA_ERROR_INVALID_VALUE)
            << "immediate length without immediate data";
        {
            // A payload above doca_comch_producer_cap_get_max_buf_size is refused at allocation
            // (the pages of this region are never touched).
            uint32_t max_send = 0;
            ASSERT_EQ(doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(dev), &max_send),
                      DOCA_SUCCESS);
            ASSERT_LT(max_send, UINT32_MAX);
            region huge(dev, size_t(max_send) + 1, {.kind = mem_kind::anon});
            ASSERT_TRUE(huge.ok()) << huge.error;
            doca_buf *too_long = huge.get_by_data(0, size_t(max_send) + 1);
            ASSERT_NE(too_long, nullptr);
            EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, too_long, nullptr, 0, 1, &st),
                      DOCA_ERROR_INVALID_VALUE)
                << "payload of " << max_send + 1ull << " bytes";
            doca_buf *longest = huge.get_by_data(0, max_send);
            ASSERT_NE(longest, nullptr);
            EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, longest, nullptr, 0, 1, &st),
                      DOCA_SUCCESS);
            if (st)
                doca_task_free(doca_comch_producer_task_send_as_task(st));
            doca_buf_dec_refcount(too_long, nullptr);
            doca_buf_dec_refcount(longest, nullptr);
        }
        // Send-task accessors; immediate data is copied into the task.
        ASSERT_EQ(doca_comch_producer_task_send_alloc_init(pr, src, imm, 9, 7, &st), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_producer_task_send_get_buf(st), src);
        EXPECT_EQ(doca_comch_producer_task_send_get_consumer_id(st), 7u);
        doca_comch_producer_task_send_set_consumer_id(st, 8);
        EXPECT_EQ(doca_comch_producer_task_send_get_consumer_id(st), 8u);
        EXPECT_EQ(doca_comch_producer_task_send_get_imm_data_len(st), 9u);
        uint8_t *copy = doca_comch_producer_task_send_get_imm_data(st);
        ASSERT_NE(copy, nullptr);
        EXPECT_NE(copy, imm) << "the task keeps its own copy";
        EXPECT_EQ(std::memcmp(copy, imm, 9), 0);
        imm[0] = 99;
        EXPECT_EQ(doca_comch_producer_task_send_get_imm_data(st)[0], 1);
        doca_comch_producer_task_send_set_imm_data(st, imm, 33); // refused, task unchanged
        EXPECT_EQ(doca_comch_producer_task_send_get_imm_data_len(st), 9u);
        doca_comch_producer_task_send_set_imm_data(st, imm + 1, 3);
        EXPECT_EQ(doca_comch_producer_task_send_get_imm_data_len(st), 3u);
        EXPECT_EQ(std::memcmp(doca_comch_producer_task_send_get_imm_data(st), imm + 1, 3), 0);
        doca_comch_producer_task_send_set_imm_data(st, nullptr, 0);
        EXPECT_EQ(doca_comch_producer_task_send_get_imm_data_len(st), 0u);
        EXPECT_EQ(doca_comch_producer_task_send_get_imm_data(st), nullptr);
        doca_buf *src2 = started.get_by_data(64, 64);
        ASSERT_NE(src2, nullptr);
        doca_comch_producer_task_send_set_buf(st, src2);
        EXPECT_EQ(doca_comch_producer_task_send_get_buf(st), src2);
        EXPECT_EQ(doca_task_get_ctx(doca_comch_producer_task_send_as_task(st)), pctx);
        // Unknown consumer ids are refused at submit; the caller keeps the task.
        doca_comch_producer_task_send_set_consumer_id(st, 0);
        EXPECT_EQ(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_ERROR_NOT_FOUND)
            << "id 0";
        doca_comch_producer_task_send_set_consumer_id(st, 0xfffffff0u);
        EXPECT_EQ(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_ERROR_NOT_FOUND)
            << "unknown id";
        doca_task_free(doca_comch_producer_task_send_as_task(st));
        // Id 0 is not among alloc_init's documented refusals: the task is built, submit says NOT_FOUND.
        doca_comch_producer_task_send *st0 = nullptr;
        EXPECT_EQ(doca_comch_producer_task_send_alloc_init(pr, src, nullptr, 0, 0, &st0),
                  DOCA_SUCCESS)
            << "consumer id 0 at alloc_init";
        if (st0) {
            EXPECT_EQ(doca_task_submit(doca_comch_producer_task_send_as_task(st0)),
                      DOCA_ERROR_NOT_FOUND);
            doca_task_free(doca_comch_producer_task_send_as_task(st0));
        }
        stop_rc = doca_ctx_stop(pctx);
        EXPECT_TRUE(stop_rc == DOCA_SUCCESS || stop_rc == DOCA_ERROR_IN_PROGRESS)
            << err_name(stop_rc);
        pe_group ppg({ppe});
        EXPECT_TRUE(ppg.until(
            [&] {
                doca_ctx_states pst = DOCA_CTX_STATE_RUNNING;
                doca_ctx_get_state(pctx, &pst);
                return pst == DOCA_CTX_STATE_IDLE;
            },
            5000ms));
        EXPECT_EQ(doca_comch_producer_destroy(pr), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(ppe), DOCA_SUCCESS);
        doca_buf_dec_refcount(src, nullptr);
        doca_buf_dec_refcount(src2, nullptr);
    }
    {
        // Against the peer's consumer (8 immediate bytes, one 4 KiB buffer posted at a time).
        uint32_t cid = 0;
        ASSERT_EQ(learn_remote_consumer(c, c, conn, cid), "");
        {
            // An unknown SOFTCOMCH_COPY is a configuration error the producer's start reports.
            setenv("SOFTCOMCH_COPY", "fastest", 1);
            producer bad(conn, dev, {.num_tasks = 1, .slots = 1, .slot_size = 64});
            ASSERT_TRUE(bad.ok());
            EXPECT_EQ(bad.start(), DOCA_ERROR_BAD_CONFIG);
            EXPECT_EQ(bad.state(), DOCA_CTX_STATE_IDLE);
            unsetenv("SOFTCOMCH_COPY");
            EXPECT_EQ(bad.destroy(), DOCA_SUCCESS);
        }
        producer p(conn, dev, {.num_tasks = 4, .slots = 4, .slot_size = 8192});
        ASSERT_EQ(start_producer(p), "");
        std::vector<uint8_t> big(4097), fits(4096), small(100);
        fill_pattern(big.data(), big.size(), 1);
        fill_pattern(fits.data(), fits.size(), 2);
        fill_pattern(small.data(), small.size(), 3);
        uint8_t imm9[9] = {9, 9, 9, 9, 9, 9, 9, 9, 9};
        // More immediate bytes than the consumer accepts: refused at submit.
        EXPECT_EQ(p.send(cid, small.data(), small.size(), imm9, 9), DOCA_ERROR_INVALID_VALUE);
        // Wrong consumer id through the wrapper.
        EXPECT_EQ(p.send(cid + 1000, small.data(), small.size()), DOCA_ERROR_NOT_FOUND);
        // Larger than the posted buffer: submitted, then fails with TOO_BIG; the buffer stays posted.
        ASSERT_EQ(p.send(cid, big.data(), big.size()), DOCA_SUCCESS);
        ASSERT_TRUE(p.wait_completions(5000ms));
        EXPECT_EQ(p.ok_count, 0u);
        EXPECT_EQ(errs_to_string(p.err_statuses), "[DOCA_ERROR_TOO_BIG]");
        // The same buffer takes the next (small) message: no AGAIN, it was not consumed.
        ASSERT_EQ(p.send(cid, small.data(), small.size(), imm9, 8, {.timeout = 2000ms}),
                  DOCA_SUCCESS)
            << "after TOO_BIG the consumer's buffer must still be posted";
        ASSERT_TRUE(p.wait_completions(5000ms));
        EXPECT_EQ(p.ok_count, 1u);
        std::string rest;
        ASSERT_TRUE(expect_msg(c, "rx ", &rest, 5000ms));
        EXPECT_EQ(rest, strf("%zu %u 8 %" PRIu64, small.size(), p.id(),
                             checksum(small.data(), small.size())));
        // Exactly the buffer's size fits (the consumer reposts after each message).
        ASSERT_EQ(p.send(cid, fits.data(), fits.size(), nullptr, 0, {.timeout = 5000ms}),
                  DOCA_SUCCESS);
        ASSERT_TRUE(p.wait_completions(5000ms));
        EXPECT_EQ(p.ok_count, 2u);
        ASSERT_TRUE(expect_msg(c, "rx ", &rest, 5000ms));
        EXPECT_EQ(rest, strf("%zu %u 0 %" PRIu64, fits.size(), p.id(),
                             checksum(fits.data(), fits.size())));
        EXPECT_EQ(p.err_count, 1u) << errs_to_string(p.err_statuses);
        EXPECT_FALSE(expect_msg(c, "rx ", &rest, 200ms)) << "unexpected delivery: " << rest;
        ASSERT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
        ASSERT_EQ(send_ctrl(c, conn, "done"), DOCA_SUCCESS);
        ASSERT_TRUE(expect_msg(c, "stopped", nullptr, 5000ms));
    }
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(kChildTimeout), 0);
}

// =============================================================================================
// 8. doca_comch_server_disconnect refuses while a consumer or producer lives on the connection.
// =============================================================================================

TEST_F(FastPathOnce, ServerDisconnectInUse)
{
    child_guard child(spawn([] {
        fp_client c("fp-inuse");
        CHILD_CHECK(c.ok());
        CHILD_CHECK_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
        CHILD_CHECK(c.wait_running(10000ms));
        // The server disconnects this client once its fast-path objects are gone.
        CHILD_CHECK(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 15000ms));
        return 0;
    }));
    fp_server s("fp-inuse");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(s, conn));
    {
        consumer cons(conn, s.dev(), {.slots = 2});
        ASSERT_TRUE(cons.ok());
        EXPECT_EQ(doca_comch_server_disconnect(s.handle(), conn), DOCA_ERROR_IN_USE)
            << "IDLE consumer";
        ASSERT_EQ(start_consumer(cons, s), "");
        ASSERT_EQ(cons.post_all(), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_server_disconnect(s.handle(), conn), DOCA_ERROR_IN_USE)
            << "RUNNING consumer";
        ASSERT_EQ(cons.stop_and_wait(s.pe()), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_server_disconnect(s.handle(), conn), DOCA_ERROR_IN_USE)
            << "stopped, not destroyed";
        ASSERT_EQ(cons.destroy(), DOCA_SUCCESS);
    }
    {
        producer p(conn, s.dev(), {.num_tasks = 2, .slots = 2});
        ASSERT_TRUE(p.ok());
        EXPECT_EQ(doca_comch_server_disconnect(s.handle(), conn), DOCA_ERROR_IN_USE)
            << "IDLE producer";
        ASSERT_EQ(start_producer(p), "");
        EXPECT_EQ(doca_comch_server_disconnect(s.handle(), conn), DOCA_ERROR_IN_USE)
            << "RUNNING producer";
        ASSERT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        ASSERT_EQ(p.destroy(), DOCA_SUCCESS);
    }
    doca_error_t rc;
    auto end = clock::now() + 5000ms;
    while ((rc = doca_comch_server_disconnect(s.handle(), conn)) == DOCA_ERROR_AGAIN &&
           clock::now() < end)
        doca_pe_progress(s.pe());
    EXPECT_EQ(rc, DOCA_SUCCESS);
    s.progress_for(200ms);
    EXPECT_TRUE(s.disconnected.empty())
        << "no disconnect event for a disconnection the server asked for";
    EXPECT_EQ(child.wait(kChildTimeout), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Modes, FastPath, ::testing::Bool(), mode_name);

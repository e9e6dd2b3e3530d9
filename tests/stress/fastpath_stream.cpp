// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_stream.hpp.
#include "fastpath_stream.hpp"

#include <atomic>
#include <cinttypes>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace sc_test::fp {

namespace {

struct msg_header {
    uint32_t magic;
    uint32_t flags;
    uint32_t producer_id;
    uint32_t consumer_id;
    uint64_t seq;
    uint32_t body_len;
    uint32_t imm_len;
    uint64_t sum;
};
constexpr uint32_t kMagic = 0x53545253; // "STRS"
constexpr uint32_t kEnd = 1;
constexpr uint32_t kImmLen = 16;
constexpr uint64_t kImmEvery = 5;

// Mostly small messages, some medium, a few up to max.
size_t body_len(uint32_t pid, uint32_t cid, uint64_t seq, size_t max)
{
    uint64_t r = mix64((uint64_t(pid) << 42) ^ (uint64_t(cid) << 21) ^ seq);
    size_t cap = (r & 0xff) < 180 ? 1024 : (r & 0xff) < 245 ? 16384 : max;
    return size_t((r >> 8) % (std::min(cap, max) + 1));
}

void imm_for(uint8_t *imm, uint32_t pid, uint32_t cid, uint64_t seq)
{
    uint64_t a = seq, b = mix64((uint64_t(pid) << 32) | cid) ^ seq;
    std::memcpy(imm, &a, 8);
    std::memcpy(imm + 8, &b, 8);
}

struct counters {
    std::atomic<uint64_t> rx_msgs{0}, rx_bytes{0}, tx_msgs{0}, again{0}, repost_again{0};
};

} // namespace

std::string stream_side(side &s, consumer_events &ev, doca_comch_connection *conn, doca_dev *dev,
                        bool epoll, const stream_cfg &cfg, const char *who)
{
    const size_t slot = sizeof(msg_header) + cfg.max_msg;
    std::vector<std::unique_ptr<consumer>> cons;
    std::vector<std::unique_ptr<producer>> prods;
    for (long i = 0; i < cfg.consumers; ++i) {
        mem_kind k = i % 3 == 0 ? mem_kind::aligned : i % 3 == 1 ? mem_kind::heap : mem_kind::anon;
        cons.push_back(std::make_unique<consumer>(conn, dev,
                                                  consumer_options{.slots = 16,
                                                                   .slot_size = slot,
                                                                   .imm_data_len = int(kImmLen),
                                                                   .mem = k,
                                                                   .epoll = epoll}));
        REQ_MSG(cons.back()->ok(), "consumer %ld: %s/%s", i,
                err_name(cons.back()->create_rc).c_str(), err_name(cons.back()->setup_rc).c_str());
    }
    for (long i = 0; i < cfg.producers; ++i) {
        prods.push_back(std::make_unique<producer>(
            conn, dev,
            producer_options{.num_tasks = 32, .slots = 32, .slot_size = slot, .epoll = epoll}));
        REQ_MSG(prods.back()->ok(), "producer %ld: %s/%s", i,
                err_name(prods.back()->create_rc).c_str(),
                err_name(prods.back()->setup_rc).c_str());
    }

    std::mutex err_mu;
    std::vector<std::string> errors;
    auto report = [&](const std::string &e) {
        std::lock_guard<std::mutex> g(err_mu);
        if (errors.size() < 50)
            errors.push_back(e);
        std::fprintf(stderr, "[%s] %s\n", who, e.c_str());
    };
    counters cnt;
    std::atomic<int> done{0};
    std::atomic<bool> remote_known{false};
    std::vector<uint32_t> remote_ids;
    const auto stream_end = clock::now() + std::chrono::seconds(cfg.seconds);
    const auto deadline = stream_end + 60s;
    std::vector<std::thread> threads;

    for (size_t i = 0; i < cons.size(); ++i)
        threads.emplace_back([&, i] {
            consumer &c = *cons[i];
            std::map<uint32_t, uint64_t> next_seq;
            std::set<uint32_t> ended;
            std::string bad;
            c.on_recv = [&](consumer &self, const recv_view &v) {
                if (!bad.empty())
                    return;
                cnt.rx_msgs.fetch_add(1, std::memory_order_relaxed);
                cnt.rx_bytes.fetch_add(v.len, std::memory_order_relaxed);
                msg_header h;
                if (v.len < sizeof h) {
                    bad = strf("short message of %zu bytes", v.len);
                    return;
                }
                std::memcpy(&h, v.data, sizeof h);
                uint64_t &want = next_seq[v.producer_id];
                if (h.magic != kMagic)
                    bad = "bad magic";
                else if (h.producer_id != v.producer_id)
                    bad =
                        strf("header names producer %u, the task %u", h.producer_id, v.producer_id);
                else if (h.consumer_id != self.id())
                    bad = strf("message for consumer %u landed in %u", h.consumer_id, self.id());
                else if (ended.count(v.producer_id))
                    bad = strf("producer %u: message after its end marker", v.producer_id);
                else if (h.seq != want)
                    bad = strf("producer %u: seq %" PRIu64 ", expected %" PRIu64, v.producer_id,
                               h.seq, want);
                else if (h.flags & kEnd)
                    ended.insert(v.producer_id);
                else if (v.len != sizeof h + h.body_len ||
                         h.body_len != body_len(h.producer_id, h.consumer_id, h.seq, cfg.max_msg))
                    bad = strf("producer %u seq %" PRIu64 ": length %zu", v.producer_id, h.seq,
                               v.len);
                else if (checksum(v.data + sizeof h, h.body_len) != h.sum)
                    bad = strf("producer %u seq %" PRIu64 ": checksum mismatch", v.producer_id,
                               h.seq);
                else if (h.imm_len != v.imm_len)
                    bad = strf("producer %u seq %" PRIu64 ": %u immediate bytes, expected %u",
                               v.producer_id, h.seq, v.imm_len, h.imm_len);
                else if (h.imm_len) {
                    uint8_t imm[kImmLen];
                    imm_for(imm, h.producer_id, h.consumer_id, h.seq);
                    if (!v.imm || std::memcmp(imm, v.imm, kImmLen) != 0)
                        bad = strf("producer %u seq %" PRIu64 ": immediate data differs",
                                   v.producer_id, h.seq);
                }
                if (!(h.flags & kEnd))
                    ++want;
                else if (bad.empty() && h.seq != want)
                    bad = "end marker count mismatch";
            };
            doca_error_t rc = c.start();
            if (rc != DOCA_ERROR_IN_PROGRESS) {
                report(strf("consumer %zu start: %s", i, err_name(rc).c_str()));
            } else if (!c.progress_until([&] { return c.state() == DOCA_CTX_STATE_RUNNING; },
                                         10000ms)) {
                report(strf("consumer %zu not RUNNING (%s)", i, state_name(c.state()).c_str()));
            } else if ((rc = c.post_all()) != DOCA_SUCCESS) {
                report(strf("consumer %zu post: %s", i, err_name(rc).c_str()));
            } else {
                auto left =
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
                if (!c.progress_until(
                        [&] { return ended.size() == size_t(cfg.producers) || !bad.empty(); },
                        left))
                    report(strf("consumer %zu: end markers from %zu of %ld producers", i,
                                ended.size(), cfg.producers));
                if (!bad.empty())
                    report(strf("consumer %u: %s", c.id(), bad.c_str()));
                if (!c.anomalies.empty())
                    report(strf("consumer %u: %s", c.id(), join(c.anomalies).c_str()));
                if (c.repost_failures)
                    report(strf("consumer %u: %zu reposts refused (%s)", c.id(), c.repost_failures,
                                err_name(c.last_repost_rc).c_str()));
                cnt.repost_again.fetch_add(c.repost_again + c.post_again,
                                           std::memory_order_relaxed);
                if ((rc = c.stop_and_wait(nullptr, 5000ms)) != DOCA_SUCCESS)
                    report(strf("consumer %zu stop: %s", i, err_name(rc).c_str()));
                for (auto e : c.errors)
                    if (e != DOCA_ERROR_SHUTDOWN)
                        report(
                            strf("consumer %zu: flushed receive with %s", i, err_name(e).c_str()));
            }
            ++done;
        });

    for (size_t i = 0; i < prods.size(); ++i)
        threads.emplace_back([&, i] {
            producer &p = *prods[i];
            while (!remote_known.load() && clock::now() < deadline)
                std::this_thread::sleep_for(1ms);
            doca_error_t rc;
            if (!remote_known.load()) {
                report(strf("producer %zu: remote consumers never announced", i));
            } else if ((rc = p.start()) != DOCA_SUCCESS) {
                report(strf("producer %zu start: %s", i, err_name(rc).c_str()));
            } else {
                const uint32_t pid = p.id();
                std::vector<uint64_t> seq(remote_ids.size(), 0);
                bool failed = false;
                auto send_one = [&](size_t r, bool end) {
                    uint32_t rid = remote_ids[r];
                    uint64_t n = seq[r];
                    size_t blen = end ? 0 : body_len(pid, rid, n, cfg.max_msg);
                    bool with_imm = !end && n % kImmEvery == 0;
                    uint8_t imm[kImmLen];
                    if (with_imm)
                        imm_for(imm, pid, rid, n);
                    rc = p.send(
                        rid, sizeof(msg_header) + blen,
                        [&](uint8_t *d, size_t) {
                            msg_header h{kMagic,         end ? kEnd : 0,         pid, rid, n,
                                         uint32_t(blen), with_imm ? kImmLen : 0, 0};
                            fill_pattern(d + sizeof h, blen, pattern_seed(blen, n, pid));
                            h.sum = checksum(d + sizeof h, blen);
                            std::memcpy(d, &h, sizeof h);
                        },
                        with_imm ? imm : nullptr, with_imm ? kImmLen : 0, {.timeout = 20000ms});
                    if (rc != DOCA_SUCCESS) {
                        report(strf("producer %u -> %u seq %" PRIu64 ": %s", pid, rid, n,
                                    err_name(rc).c_str()));
                        failed = true;
                        return;
                    }
                    if (!end)
                        ++seq[r];
                    cnt.tx_msgs.fetch_add(1, std::memory_order_relaxed);
                };
                while (!failed && clock::now() < stream_end)
                    for (size_t r = 0; r < remote_ids.size() && !failed; ++r)
                        send_one(r, false);
                for (size_t r = 0; r < remote_ids.size() && !failed; ++r)
                    send_one(r, true);
                if (!p.wait_completions(10000ms))
                    report(strf("producer %u: %zu sends never completed", pid, p.in_flight()));
                if (p.err_count)
                    report(strf("producer %u: %zu sends failed %s", pid, p.err_count,
                                errs_to_string(std::vector<doca_error_t>(
                                                   p.err_statuses.begin(),
                                                   p.err_statuses.begin() +
                                                       std::min<size_t>(p.err_statuses.size(), 8)))
                                    .c_str()));
                cnt.again.fetch_add(p.again, std::memory_order_relaxed);
                if ((rc = p.stop_and_wait()) != DOCA_SUCCESS)
                    report(strf("producer %u stop: %s", pid, err_name(rc).c_str()));
            }
            ++done;
        });

    // This thread: the connection (negotiation, events) and numbered control messages.
    if (!s.progress_until([&] { return ev.news_count() >= size_t(cfg.consumers); }, 15000ms))
        report(strf("only %zu of %ld remote consumers announced", ev.news_count(), cfg.consumers));
    for (auto &e : ev.news())
        remote_ids.push_back(e.id);
    remote_known = true;
    const int total = int(cons.size() + prods.size());
    uint64_t ping_out = 0, ping_in = 0;
    auto next_ping = clock::now(), next_log = clock::now() + 10s;
    const auto t0 = clock::now();
    while (done.load() < total && clock::now() < deadline + 10s) {
        s.progress_until([] { return false; }, 2ms);
        if (clock::now() >= next_ping && clock::now() < stream_end) {
            if (s.send(conn, "ping " + std::to_string(ping_out)) == DOCA_SUCCESS)
                ++ping_out;
            next_ping = clock::now() + 20ms;
        }
        while (!s.received.empty() && s.received.front().data.compare(0, 5, "ping ") == 0) {
            uint64_t n = parse_u64(s.received.front().data.substr(5));
            if (n != ping_in)
                report(strf("control message %" PRIu64 ", expected %" PRIu64, n, ping_in));
            ping_in = n + 1;
            s.received.pop_front();
        }
        if (clock::now() >= next_log) {
            double secs = std::chrono::duration<double>(clock::now() - t0).count();
            std::fprintf(stderr,
                         "[%s] %.0f s: received %" PRIu64 " messages (%.1f MB/s), sent %" PRIu64
                         ", pings %" PRIu64 "/%" PRIu64 "\n",
                         who, secs, cnt.rx_msgs.load(), double(cnt.rx_bytes.load()) / secs / 1e6,
                         cnt.tx_msgs.load(), ping_out, ping_in);
            next_log += 10s;
        }
    }
    if (done.load() < total)
        report("threads did not finish in time");
    for (auto &t : threads)
        t.join();
    std::fprintf(stderr,
                 "[%s] total: received %" PRIu64 " messages / %" PRIu64 " bytes, sent %" PRIu64
                 ", send AGAIN retries %" PRIu64 ", receive-post AGAIN retries %" PRIu64
                 ", pings %" PRIu64 "/%" PRIu64 "\n",
                 who, cnt.rx_msgs.load(), cnt.rx_bytes.load(), cnt.tx_msgs.load(), cnt.again.load(),
                 cnt.repost_again.load(), ping_out, ping_in);
    if (ping_in == 0)
        report("no control messages came through during the stream");
    s.received.erase(
        std::remove_if(s.received.begin(), s.received.end(),
                       [](const message &m) { return m.data.compare(0, 5, "ping ") == 0; }),
        s.received.end());
    REQ_MSG(errors.empty(), "%s", join(errors).c_str());
    for (auto &c : cons)
        REQ_EQ(c->destroy(), DOCA_SUCCESS);
    for (auto &p : prods)
        REQ_EQ(p->destroy(), DOCA_SUCCESS);
    return "";
}

} // namespace sc_test::fp

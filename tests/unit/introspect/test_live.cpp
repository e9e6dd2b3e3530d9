// SPDX-License-Identifier: Apache-2.0
//
// The reader of the live-figures files (introspect/live.hpp) against files the writer
// (transport/live_publisher.hpp) made, and against files it did not: of processes that ended
// (gone, a zombie, a pid now naming another process), of another layout version, foreign,
// short, misnamed, half-made. Stale files are removed (or only listed), the others left alone.
#include "introspect/live.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "common/live_layout.hpp"
#include "common/process_info.hpp"
#include "transport/fabric.hpp"
#include "transport/live_publisher.hpp"

namespace {

namespace introspect = softcomch::introspect;
namespace live = softcomch::live;
namespace transport = softcomch::transport;

bool exists(const std::string &p)
{
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0;
}

std::string read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    ::chmod(path.c_str(), 0600);
}

template <class T> void patch(std::string &bytes, size_t offset, T v)
{
    std::memcpy(bytes.data() + offset, &v, sizeof v);
}

// A child that waits until killed (a live pid that is not ours).
pid_t sleeper()
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::pause();
        ::_exit(0);
    }
    return pid;
}

// A pid that names no process now (a child that ended and was reaped).
pid_t dead_pid()
{
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(0);
    int st = 0;
    ::waitpid(pid, &st, 0);
    return pid;
}

class LiveReader : public ::testing::Test {
protected:
    void SetUp() override
    {
        static int n = 0;
        fabric_ = "t-live-read-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
        dir_ = transport::fabric_dir(fabric_);
        transport::live_context_identity id;
        id.id = 3;
        id.kind = live::k_kind_client;
        id.name = "the-server";
        id.bluefield = "bf0";
        id.device = "0000:b1:00.0";
        id.host_function = "0000:b1:00.0";
        id.max_msg_size = 4080;
        id.recv_queue_size = 16;
        id.state = 1; // STARTING
        ASSERT_TRUE(ctx_.claim(fabric_, id));
        stats_ = dir_ + "/stats";
        own_ = transport::live_file_path(fabric_);
    }
    void TearDown() override
    {
        conn_.release();
        ctx_.release();
        // What a test left (the files it made by hand).
        for (const auto &p : made_)
            ::unlink(p.c_str());
        ::rmdir(stats_.c_str());
        ::rmdir(dir_.c_str());
    }
    // A copy of our own file under another name, patched by `edit`.
    std::string plant(const std::string &name, const std::function<void(std::string &)> &edit)
    {
        std::string bytes = read_file(own_);
        edit(bytes);
        const std::string path = stats_ + "/" + name;
        write_file(path, bytes);
        made_.push_back(path);
        return path;
    }

    std::string fabric_, dir_, stats_, own_;
    transport::live_context_slot ctx_;
    transport::live_connection_slot conn_;
    std::vector<std::string> made_;
};

TEST_F(LiveReader, ReadsWhatTheWriterPublished)
{
    ASSERT_TRUE(conn_.claim(ctx_, {9, 4321, 2048, 64, 16}));
    live::connection_slot &s = *conn_.get();
    s.counters.sent_messages.store(10);
    s.counters.sent_bytes.store(1000);
    s.counters.recv_messages.store(3);
    s.counters.recv_bytes.store(21);
    s.send_queued.store(2);
    s.send_ring.store(5);
    s.recv_ring.store(1);
    s.consumers.store(1);
    s.producers.store(2);
    s.flags.store(live::k_flag_peer_stalled | live::k_flag_peer_asleep);
    s.peer_silent_ms.store(750);
    s.state.store(live::k_conn_closing);
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ctx_.get()->last_tick_ns.store(uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec) -
                                   2'000'000'000u);

    const introspect::live_view v = introspect::read_live(dir_);
    EXPECT_EQ(v.stats_dir, stats_);
    EXPECT_TRUE(v.unreadable.empty());
    EXPECT_TRUE(v.stale.empty());
    ASSERT_EQ(v.processes.size(), 1u);
    EXPECT_EQ(v.processes[0].pid, ::getpid());
    EXPECT_EQ(v.processes[0].comm, softcomch::process_comm(0));
    EXPECT_NE(v.processes[0].cmdline.find("unit_introspect_test_live"), std::string::npos);
    EXPECT_EQ(v.processes[0].state, 'R');
    EXPECT_EQ(v.processes[0].path, own_);
    ASSERT_EQ(v.contexts.size(), 1u);
    const introspect::live_context &c = v.contexts[0];
    EXPECT_EQ(c.pid, ::getpid());
    EXPECT_EQ(c.id, 3u);
    EXPECT_EQ(c.kind, "client");
    EXPECT_EQ(c.name, "the-server");
    EXPECT_FALSE(c.name_truncated);
    EXPECT_EQ(c.state, "STARTING");
    EXPECT_EQ(c.bluefield, "bf0");
    EXPECT_EQ(c.device, "0000:b1:00.0");
    EXPECT_EQ(c.host_function, "0000:b1:00.0");
    EXPECT_EQ(c.representor, "");
    EXPECT_EQ(c.max_msg_size, 4080u);
    EXPECT_EQ(c.recv_queue_size, 16u);
    EXPECT_EQ(c.connections, 1u);
    ASSERT_TRUE(c.since_tick_ms.has_value());
    EXPECT_GE(*c.since_tick_ms, 2000u);
    EXPECT_LT(*c.since_tick_ms, 60000u);
    ASSERT_EQ(v.connections.size(), 1u);
    const introspect::live_connection &k = v.connections[0];
    EXPECT_EQ(k.pid, ::getpid());
    EXPECT_EQ(k.context_id, 3u);
    EXPECT_EQ(k.side, "client");
    EXPECT_EQ(k.name, "the-server");
    EXPECT_EQ(k.id, 9u);
    EXPECT_EQ(k.peer_pid, 4321);
    EXPECT_EQ(k.state, "closing");
    EXPECT_EQ(k.sent_messages, 10u);
    EXPECT_EQ(k.sent_bytes, 1000u);
    EXPECT_EQ(k.recv_messages, 3u);
    EXPECT_EQ(k.recv_bytes, 21u);
    EXPECT_EQ(k.send_queued, 2u);
    EXPECT_EQ(k.send_ring, 5u);
    EXPECT_EQ(k.send_ring_limit, 64u);
    EXPECT_EQ(k.recv_ring, 1u);
    EXPECT_EQ(k.recv_ring_limit, 16u);
    EXPECT_EQ(k.consumers, 1u);
    EXPECT_EQ(k.producers, 2u);
    EXPECT_TRUE(k.peer_stalled);
    EXPECT_TRUE(k.peer_asleep);
    EXPECT_FALSE(k.peer_gone);
    EXPECT_EQ(k.peer_silent_ms, 750u);
    EXPECT_EQ(k.max_msg_size, 2048u);

    // Released, it is no longer there; never ticked reads as no tick.
    conn_.release();
    ctx_.get()->last_tick_ns.store(0);
    const introspect::live_view w = introspect::read_live(dir_);
    EXPECT_TRUE(w.connections.empty());
    ASSERT_EQ(w.contexts.size(), 1u);
    EXPECT_EQ(w.contexts[0].connections, 0u);
    EXPECT_FALSE(w.contexts[0].since_tick_ms.has_value());
}

TEST_F(LiveReader, ALongNameIsMarkedTruncated)
{
    transport::live_context_slot big;
    transport::live_context_identity id;
    id.id = 4; // after the fixture's context (3) in the reader's order
    id.kind = live::k_kind_server;
    id.name = std::string(200, 'n');
    ASSERT_TRUE(big.claim(fabric_, id));
    const introspect::live_view v = introspect::read_live(dir_);
    ASSERT_EQ(v.contexts.size(), 2u);
    EXPECT_EQ(v.contexts[1].name, std::string(127, 'n'));
    EXPECT_TRUE(v.contexts[1].name_truncated);
    EXPECT_EQ(v.contexts[1].kind, "server");
}

TEST_F(LiveReader, FilesOfEndedProcessesAreRemoved)
{
    const pid_t gone = dead_pid();
    const std::string gone_file = plant(std::to_string(gone) + ".stats",
                                        [&](std::string &b) { patch<int32_t>(b, 28, gone); });
    // A pid that now names another process: same pid, another start time.
    const pid_t other = sleeper();
    const std::string reused = plant(std::to_string(other) + ".stats", [&](std::string &b) {
        patch<int32_t>(b, 28, other);
        patch<uint64_t>(b, 32, 1);
    });
    // A zombie: it ended, its parent (this test) has not reaped it.
    const pid_t zombie = ::fork();
    if (zombie == 0)
        ::_exit(0);
    softcomch::process_stat zs;
    for (int i = 0; i < 10000 && !(softcomch::read_process_stat(zombie, zs) && zs.state == 'Z');
         ++i)
        ::usleep(100); // bounded wait for the child to end
    const std::string zombie_file = plant(std::to_string(zombie) + ".stats", [&](std::string &b) {
        patch<int32_t>(b, 28, zombie);
        patch<uint64_t>(b, 32, zs.start_time);
    });
    // Half made by a process that died before renaming it.
    const std::string tmp = plant(std::to_string(gone) + ".stats.tmp", [](std::string &) {});

    const introspect::live_view listed = introspect::read_live(dir_, false);
    EXPECT_EQ(listed.stale.size(), 4u);
    EXPECT_EQ(listed.processes.size(), 1u) << "only this one";
    for (const auto &p : {gone_file, reused, zombie_file, tmp})
        EXPECT_TRUE(exists(p)) << p << " only listed";

    const introspect::live_view v = introspect::read_live(dir_);
    EXPECT_EQ(v.stale.size(), 4u);
    EXPECT_TRUE(v.unreadable.empty());
    ASSERT_EQ(v.processes.size(), 1u);
    EXPECT_EQ(v.processes[0].pid, ::getpid());
    for (const auto &p : {gone_file, reused, zombie_file, tmp})
        EXPECT_FALSE(exists(p)) << p;
    EXPECT_TRUE(exists(own_));
    EXPECT_TRUE(introspect::read_live(dir_).stale.empty());

    ::kill(other, SIGKILL);
    int st = 0;
    ::waitpid(other, &st, 0);
    ::waitpid(zombie, &st, 0);
}

TEST_F(LiveReader, FilesItCannotReadAreListedAndLeftAlone)
{
    const pid_t other = sleeper();
    softcomch::process_stat os;
    ASSERT_TRUE(softcomch::read_process_stat(other, os));
    const std::string p = std::to_string(other);
    auto as_other = [&](std::string &b) {
        patch<int32_t>(b, 28, other);
        patch<uint64_t>(b, 32, os.start_time);
    };
    // Sanity: as_other alone makes a readable file of that process.
    const std::string fine = plant(p + ".stats", as_other);
    {
        const introspect::live_view v = introspect::read_live(dir_);
        EXPECT_TRUE(v.unreadable.empty());
        EXPECT_EQ(v.processes.size(), 2u);
        EXPECT_EQ(v.contexts.size(), 2u);
    }
    ::unlink(fine.c_str());

    struct bad {
        std::string name;
        std::function<void(std::string &)> edit;
        std::string why;
    };
    const std::vector<bad> cases{
        {p + ".stats",
         [&](std::string &b) {
             as_other(b);
             patch<uint32_t>(b, 4, 3);
         },
         "stats layout version 3 (this softcomch reads 2)"},
        {p + ".stats",
         [&](std::string &b) {
             as_other(b);
             patch<uint32_t>(b, 0, 0x12345678);
         },
         "not a SoftComch stats file (bad magic)"},
        {p + ".stats",
         [&](std::string &b) {
             as_other(b);
             patch<uint32_t>(b, 24, 4096);
         },
         "a header whose sizes are not those of its layout version"},
        {p + ".stats",
         [&](std::string &b) {
             as_other(b);
             b.resize(4096);
         },
         "shorter than its layout"},
        {p + ".stats", [&](std::string &b) { b.resize(100); }, "not the size of a stats file"},
        {p + ".stats",
         [&](std::string &b) {
             as_other(b);
             patch<int32_t>(b, 28, other + 1);
         },
         "its header names another pid than its file name"},
        {"junk", [](std::string &) {}, "not named <pid>.stats"},
    };
    for (const bad &c : cases) {
        const std::string path = plant(c.name, c.edit);
        const introspect::live_view v = introspect::read_live(dir_);
        ASSERT_EQ(v.unreadable.size(), 1u) << c.why;
        EXPECT_EQ(v.unreadable[0].path, path);
        EXPECT_EQ(v.unreadable[0].why, c.why);
        EXPECT_TRUE(exists(path)) << "left alone: " << c.why;
        EXPECT_EQ(v.processes.size(), 1u) << c.why;
        ::unlink(path.c_str());
    }
    ::kill(other, SIGKILL);
    int st = 0;
    ::waitpid(other, &st, 0);
}

// Any process of the uid may write a stats file: its texts reach a terminal without a control
// character (an escape sequence would recolour or clear the screen of `softcomch top`).
TEST_F(LiveReader, ControlCharactersOfAFileAreNotPassedOn)
{
    const pid_t other = sleeper();
    softcomch::process_stat os;
    ASSERT_TRUE(softcomch::read_process_stat(other, os));
    plant(std::to_string(other) + ".stats", [&](std::string &b) {
        patch<int32_t>(b, 28, other);
        patch<uint64_t>(b, 32, os.start_time);
        const char comm[] = "\x1b[2Jx\x7f";
        std::memcpy(b.data() + 144, comm, sizeof comm); // file_header::comm
        const char name[] = "srv\x1b]0;title\x07";
        std::memcpy(b.data() + 256 + 128, name, sizeof name); // context slot 0's name
    });
    const introspect::live_view v = introspect::read_live(dir_);
    bool seen = false;
    for (const auto &p : v.processes)
        if (p.pid == other) {
            EXPECT_EQ(p.comm, "?[2Jx?");
            seen = true;
        }
    EXPECT_TRUE(seen);
    for (const auto &c : v.contexts) {
        if (c.pid == other) {
            EXPECT_EQ(c.name, "srv?]0;title?");
        }
    }
    ::kill(other, SIGKILL);
    int st = 0;
    ::waitpid(other, &st, 0);
}

TEST_F(LiveReader, ASlotBeingChangedIsNotRead)
{
    // A slot whose gen is even is free, whatever else it holds; a connection whose context slot
    // is free belongs to nothing shown.
    ASSERT_TRUE(conn_.claim(ctx_, {1, 2, 64, 1, 1}));
    const pid_t other = sleeper();
    softcomch::process_stat os;
    ASSERT_TRUE(softcomch::read_process_stat(other, os));
    plant(std::to_string(other) + ".stats", [&](std::string &b) {
        patch<int32_t>(b, 28, other);
        patch<uint64_t>(b, 32, os.start_time);
        patch<uint32_t>(b, 256, 2); // context slot 0: even
    });
    const introspect::live_view v = introspect::read_live(dir_);
    EXPECT_EQ(v.processes.size(), 2u);
    ASSERT_EQ(v.contexts.size(), 1u);
    EXPECT_EQ(v.contexts[0].pid, ::getpid());
    ASSERT_EQ(v.connections.size(), 1u);
    EXPECT_EQ(v.connections[0].pid, ::getpid());
    ::kill(other, SIGKILL);
    int st = 0;
    ::waitpid(other, &st, 0);
}

TEST(LiveReaderDir, AMissingDirectoryIsEmpty)
{
    const introspect::live_view v = introspect::read_live("/nonexistent/softcomch-fabric");
    EXPECT_TRUE(v.processes.empty());
    EXPECT_TRUE(v.unreadable.empty());
    EXPECT_EQ(v.stats_dir, "/nonexistent/softcomch-fabric/stats");
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
//
// The writing side of the live-figures file (transport/live_publisher.hpp): the file's name,
// size and header at their pinned offsets, slots claimed and released through their gen word,
// the connection count of a context, full files, one file per fabric and per process (a forked
// child makes its own and leaves its parent's alone), and the file and its directory removed
// with the last context slot. The reader is tested in tests/unit/introspect/test_live.cpp.
#include "transport/live_publisher.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/process_info.hpp"
#include "common/unique_fd.hpp"
#include "transport/fabric.hpp"

namespace {

namespace live = softcomch::live;
namespace transport = softcomch::transport;

std::string fresh_fabric()
{
    static int n = 0;
    const std::string name = "t-live-pub-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
    (void)transport::fabric_dir(name);
    return name;
}

bool exists(const std::string &p)
{
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0;
}

// The file as a reader maps it.
struct mapping {
    explicit mapping(const std::string &path)
    {
        softcomch::unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        struct stat st;
        if (!fd || ::fstat(fd.get(), &st) != 0)
            return;
        size = uint64_t(st.st_size);
        base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
        if (base == MAP_FAILED)
            base = nullptr;
    }
    ~mapping()
    {
        if (base)
            ::munmap(base, size);
    }
    template <class T> T word(size_t offset) const
    {
        T v;
        std::memcpy(&v, static_cast<const char *>(base) + offset, sizeof v);
        return v;
    }
    void *base = nullptr;
    uint64_t size = 0;
};

transport::live_context_identity server_identity()
{
    transport::live_context_identity id;
    id.id = 7;
    id.kind = live::k_kind_server;
    id.name = "srv";
    id.bluefield = "bf0";
    id.device = "0000:03:00.0";
    id.host_function = "0000:b1:00.0";
    id.representor = "pf0hpf";
    id.max_msg_size = 4080;
    id.recv_queue_size = 64;
    id.state = 2;
    return id;
}

TEST(LivePublisher, FileHeaderAndSlotsAtTheirOffsets)
{
    const std::string fabric = fresh_fabric();
    const std::string path = transport::live_file_path(fabric);
    EXPECT_EQ(path, transport::fabric_dir_path(fabric) + "/stats/" + std::to_string(::getpid()) +
                        ".stats");
    EXPECT_FALSE(exists(path));
    {
        transport::live_context_slot ctx;
        ASSERT_TRUE(ctx.claim(fabric, server_identity()));
        EXPECT_EQ(ctx.fabric(), fabric);
        ASSERT_TRUE(exists(path));
        EXPECT_FALSE(exists(path + ".tmp"));
        struct stat st;
        ASSERT_EQ(::stat(path.c_str(), &st), 0);
        EXPECT_EQ(uint64_t(st.st_size), live::k_live_file_size);
        EXPECT_EQ(st.st_mode & 0777, 0600u);

        mapping m(path);
        ASSERT_NE(m.base, nullptr);
        EXPECT_EQ(m.word<uint32_t>(0), 0x564C4353u); // "SCLV"
        EXPECT_EQ(m.word<uint32_t>(4), 2u);          // version
        EXPECT_EQ(m.word<uint32_t>(8), 256u);
        EXPECT_EQ(m.word<uint32_t>(12), 256u);
        EXPECT_EQ(m.word<uint32_t>(16), 128u);
        EXPECT_EQ(m.word<uint32_t>(20), 128u);
        EXPECT_EQ(m.word<uint32_t>(24), 2048u);
        EXPECT_EQ(m.word<int32_t>(28), int32_t(::getpid()));
        softcomch::process_stat self;
        ASSERT_TRUE(softcomch::read_process_stat(0, self));
        EXPECT_EQ(m.word<uint64_t>(32), self.start_time);
        EXPECT_EQ(m.word<uint64_t>(56), 256u);
        EXPECT_EQ(m.word<uint64_t>(64), 33024u);
        EXPECT_STREQ(static_cast<const char *>(m.base) + 72, fabric.c_str());
        EXPECT_STREQ(static_cast<const char *>(m.base) + 144, softcomch::process_comm(0).c_str());
        EXPECT_EQ(m.word<uint64_t>(232), 295168u); // the resource slots
        EXPECT_EQ(m.word<uint32_t>(240), 128u);
        EXPECT_EQ(m.word<uint32_t>(244), 256u);

        // Context slot 0: gen odd, then the identity.
        const size_t c0 = 256;
        EXPECT_EQ(m.word<uint32_t>(c0) & 1u, 1u);
        EXPECT_EQ(m.word<uint32_t>(c0 + 4), 7u);
        EXPECT_EQ(m.word<uint32_t>(c0 + 8), live::k_kind_server);
        EXPECT_EQ(m.word<uint32_t>(c0 + 12), 2u);
        EXPECT_EQ(m.word<uint32_t>(c0 + 16), 4080u);
        EXPECT_EQ(m.word<uint32_t>(c0 + 20), 64u);
        EXPECT_EQ(m.word<uint32_t>(c0 + 28), 3u); // name length
        EXPECT_STREQ(static_cast<const char *>(m.base) + c0 + 48, "bf0");
        EXPECT_STREQ(static_cast<const char *>(m.base) + c0 + 64, "0000:03:00.0");
        EXPECT_STREQ(static_cast<const char *>(m.base) + c0 + 80, "0000:b1:00.0");
        EXPECT_STREQ(static_cast<const char *>(m.base) + c0 + 96, "pf0hpf");
        EXPECT_STREQ(static_cast<const char *>(m.base) + c0 + 128, "srv");

        // A connection: counted in its context, zero counters, its identity on line 1.
        transport::live_connection_slot conn;
        transport::live_connection_identity cid{41, 1234, 4080, 64, 32};
        ASSERT_TRUE(conn.claim(ctx, cid));
        EXPECT_EQ(m.word<uint32_t>(c0 + 24), 1u);
        const size_t k0 = 33024;
        EXPECT_EQ(m.word<uint32_t>(k0 + 64) & 1u, 1u);
        EXPECT_EQ(m.word<uint32_t>(k0 + 68), 0u); // its context's slot
        EXPECT_EQ(m.word<uint64_t>(k0 + 72), 41u);
        EXPECT_EQ(m.word<int32_t>(k0 + 80), 1234);
        EXPECT_EQ(m.word<uint32_t>(k0 + 84), live::k_conn_open);
        EXPECT_EQ(m.word<uint32_t>(k0 + 104), 64u);
        EXPECT_EQ(m.word<uint32_t>(k0 + 108), 32u);
        EXPECT_EQ(m.word<uint32_t>(k0 + 124), 4080u);
        // The owner's stores land on line 0 of the slot.
        conn.get()->counters.sent_messages.store(5, std::memory_order_relaxed);
        conn.get()->counters.recv_bytes.store(99, std::memory_order_relaxed);
        EXPECT_EQ(m.word<uint64_t>(k0), 5u);
        EXPECT_EQ(m.word<uint64_t>(k0 + 24), 99u);
        const uint32_t gen = m.word<uint32_t>(k0 + 64);
        conn.release();
        EXPECT_EQ(m.word<uint32_t>(k0 + 64), gen + 1) << "even: free";
        EXPECT_EQ(m.word<uint32_t>(c0 + 24), 0u);
        // The next claim takes the same slot again, counters zeroed.
        ASSERT_TRUE(conn.claim(ctx, cid));
        EXPECT_EQ(m.word<uint32_t>(k0 + 64), gen + 2);
        EXPECT_EQ(m.word<uint64_t>(k0), 0u);

        // An import: its identity after the owner's line, its bytes on that line.
        transport::live_resource_slot res;
        transport::live_resource_identity rid;
        rid.kind = live::k_res_import;
        rid.id = 3;
        rid.name = "mmap";
        rid.device = "0000:03:00.0";
        rid.access = 0x20;
        rid.addr = 0x1000;
        rid.len = 8192;
        rid.peer = "pid 77";
        rid.peer_function = "0000:b1:00.0";
        ASSERT_TRUE(res.claim(fabric, rid));
        const size_t r0 = 295168;
        EXPECT_EQ(m.word<uint32_t>(r0 + 32) & 1u, 1u);
        EXPECT_EQ(m.word<uint32_t>(r0 + 36), live::k_res_import);
        EXPECT_EQ(m.word<uint32_t>(r0 + 40), 3u);
        EXPECT_EQ(m.word<uint32_t>(r0 + 44), 0x20u);
        EXPECT_EQ(m.word<uint64_t>(r0 + 48), 0x1000u);
        EXPECT_EQ(m.word<uint64_t>(r0 + 56), 8192u);
        EXPECT_STREQ(static_cast<const char *>(m.base) + r0 + 64, "mmap");
        EXPECT_STREQ(static_cast<const char *>(m.base) + r0 + 80, "0000:03:00.0");
        EXPECT_STREQ(static_cast<const char *>(m.base) + r0 + 96, "pid 77");
        EXPECT_STREQ(static_cast<const char *>(m.base) + r0 + 112, "0000:b1:00.0");
        res.get()->words.bytes.store(4096, std::memory_order_relaxed);
        EXPECT_EQ(m.word<uint64_t>(r0 + 16), 4096u);
        const uint32_t rgen = m.word<uint32_t>(r0 + 32);
        res.release();
        EXPECT_EQ(m.word<uint32_t>(r0 + 32), rgen + 1) << "even: free";
    }
    EXPECT_FALSE(exists(path)) << "removed with its last context";
    EXPECT_FALSE(exists(transport::fabric_dir_path(fabric) + "/stats")) << "and its directory";
    ::rmdir(transport::fabric_dir_path(fabric).c_str());
}

TEST(LivePublisher, OneFilePerFabricSharedByItsContexts)
{
    const std::string f1 = fresh_fabric(), f2 = fresh_fabric();
    auto a = std::make_unique<transport::live_context_slot>();
    auto b = std::make_unique<transport::live_context_slot>();
    transport::live_context_slot c;
    ASSERT_TRUE(a->claim(f1, server_identity()));
    ASSERT_TRUE(b->claim(f1, server_identity()));
    ASSERT_TRUE(c.claim(f2, server_identity()));
    EXPECT_NE(a->get(), b->get());
    EXPECT_TRUE(exists(transport::live_file_path(f1)));
    EXPECT_TRUE(exists(transport::live_file_path(f2)));
    a.reset();
    EXPECT_TRUE(exists(transport::live_file_path(f1))) << "b still uses it";
    // Moving c to the first fabric (a restart in another fabric) leaves f2 without a file.
    ASSERT_TRUE(c.claim(f1, server_identity()));
    EXPECT_FALSE(exists(transport::live_file_path(f2)));
    b.reset();
    c.release();
    EXPECT_FALSE(exists(transport::live_file_path(f1)));
    // A new claim makes a new file.
    ASSERT_TRUE(c.claim(f1, server_identity()));
    EXPECT_TRUE(exists(transport::live_file_path(f1)));
    c.release();
    ::rmdir(transport::fabric_dir_path(f1).c_str());
    ::rmdir(transport::fabric_dir_path(f2).c_str());
}

TEST(LivePublisher, AFullFileCountsWhatItCannotShow)
{
    const std::string fabric = fresh_fabric();
    std::vector<std::unique_ptr<transport::live_context_slot>> ctxs;
    for (uint32_t i = 0; i < live::k_live_context_slots; ++i) {
        ctxs.push_back(std::make_unique<transport::live_context_slot>());
        ASSERT_TRUE(ctxs.back()->claim(fabric, server_identity())) << i;
    }
    transport::live_context_slot extra;
    EXPECT_FALSE(extra.claim(fabric, server_identity()));
    EXPECT_EQ(extra.get(), nullptr);
    std::vector<std::unique_ptr<transport::live_connection_slot>> conns;
    for (uint32_t i = 0; i < live::k_live_connection_slots; ++i) {
        conns.push_back(std::make_unique<transport::live_connection_slot>());
        ASSERT_TRUE(conns.back()->claim(*ctxs[i % 4], {i, 1, 64, 1, 1})) << i;
    }
    transport::live_connection_slot one_more;
    EXPECT_FALSE(one_more.claim(*ctxs[0], {0, 1, 64, 1, 1}));
    EXPECT_FALSE(one_more.claim(extra, {0, 1, 64, 1, 1})) << "a context without a slot";
    mapping m(transport::live_file_path(fabric));
    ASSERT_NE(m.base, nullptr);
    EXPECT_EQ(m.word<uint32_t>(48), 1u); // contexts_unpublished
    EXPECT_EQ(m.word<uint32_t>(52), 1u); // connections_unpublished (the slot-less one is not)
    EXPECT_EQ(ctxs[0]->get()->connections.load(), live::k_live_connection_slots / 4);
    // A slot given back is claimed again.
    conns[5]->release();
    EXPECT_TRUE(one_more.claim(*ctxs[0], {0, 1, 64, 1, 1}));
    conns.clear();
    one_more.release();
    ctxs.clear();
    EXPECT_FALSE(exists(transport::live_file_path(fabric)));
    ::rmdir(transport::fabric_dir_path(fabric).c_str());
}

TEST(LivePublisher, AForkedChildMakesItsOwnFileAndLeavesItsParentsAlone)
{
    const std::string fabric = fresh_fabric();
    transport::live_context_slot parent;
    ASSERT_TRUE(parent.claim(fabric, server_identity()));
    const uint32_t gen = parent.get()->gen.load();
    const std::string parent_file = transport::live_file_path(fabric);
    const pid_t child = ::fork();
    if (child == 0) {
        // The inherited slot is the parent's: releasing it here changes nothing there.
        parent.release();
        transport::live_context_slot mine;
        const bool ok = mine.claim(fabric, server_identity()) &&
                        transport::live_file_path(fabric) != parent_file &&
                        exists(transport::live_file_path(fabric)) && exists(parent_file);
        mine.release();
        ::_exit(ok && !exists(transport::live_file_path(fabric)) ? 0 : 1);
    }
    int st = 0;
    ASSERT_EQ(::waitpid(child, &st, 0), child);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    EXPECT_EQ(parent.get()->gen.load(), gen);
    EXPECT_TRUE(exists(parent_file));
    parent.release();
    EXPECT_FALSE(exists(parent_file));
    ::rmdir(transport::fabric_dir_path(fabric).c_str());
}

} // namespace

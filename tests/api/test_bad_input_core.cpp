// SPDX-License-Identifier: Apache-2.0
//
// Bad input to every public function of doca_error.h, doca_version.h, doca_dev.h, doca_ctx.h,
// doca_pe.h, doca_mmap.h, doca_buf.h, doca_buf_inventory.h, doca_log.h and doca_argp.h, through
// the public headers only: NULL for each pointer argument, objects of the wrong kind, calls in
// the wrong state and values out of range return the code the header documents, and never
// crash. Every refusal must also leave an SDK log line naming the function (captured by an SDK
// buffer backend at DEBUG level). Where the header is silent, the expectation comes from
// docs/*.md and says so. doca_comch.h is covered by test_bad_input_comch.cpp.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_types.h>
#include <doca_version.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "comch_harness.hpp"
#include "sdk_log_capture.hpp"

// gtest prints DOCA codes by name.
inline void PrintTo(doca_error e, std::ostream *os)
{
    *os << doca_error_get_name(e) << " (" << int(e) << ")";
}

namespace {

// The tests assume the built-in machine with both sides visible and the SDK level they set.
const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    unsetenv("SOFTCOMCH_LOG_LEVEL");
    return 0;
}();

// ---- devices ----

struct dev_list {
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    dev_list() { EXPECT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS); }
    ~dev_list()
    {
        if (list)
            doca_devinfo_destroy_list(list);
    }
    doca_devinfo *find(const char *pci) const
    {
        for (uint32_t i = 0; i < n; ++i) {
            uint8_t eq = 0;
            if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
                return list[i];
        }
        return nullptr;
    }
};

struct rep_list {
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    explicit rep_list(doca_dev *dev)
    {
        EXPECT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &list, &n),
                  DOCA_SUCCESS);
    }
    ~rep_list()
    {
        if (list)
            doca_devinfo_rep_destroy_list(list);
    }
    doca_devinfo_rep *find(const char *pci) const
    {
        for (uint32_t i = 0; i < n; ++i) {
            uint8_t eq = 0;
            if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
                return list[i];
        }
        return nullptr;
    }
};

class BadInput : public ::testing::Test {
protected:
    void SetUp() override
    {
        sdk_log::mark();
        const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
        sc_test::use_private_fabric(std::string(info->test_suite_name()) + "-" + info->name());
    }
};

using ErrorBadInput = BadInput;
using VersionBadInput = BadInput;
using DevBadInput = BadInput;
using CtxBadInput = BadInput;
using PeBadInput = BadInput;
using MmapBadInput = BadInput;
using BufBadInput = BadInput;
using InventoryBadInput = BadInput;
using LogBadInput = BadInput;

// A Comch server, the only kind of context that exists without a peer: dev 03:00.0 with the
// representor of b1:00.0. Optionally attached to its own progress engine.
struct server_ctx {
    doca_dev *dev = nullptr;
    doca_dev_rep *rep = nullptr;
    doca_pe *pe = nullptr;
    doca_comch_server *srv = nullptr;
    doca_ctx *ctx = nullptr;

    explicit server_ctx(const char *name, bool attach = true)
    {
        dev = sc_test::open_dev("03:00.0");
        rep = dev ? sc_test::open_rep(dev, "b1:00.0") : nullptr;
        EXPECT_NE(rep, nullptr);
        EXPECT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_server_create(dev, rep, name, &srv), DOCA_SUCCESS);
        ctx = doca_comch_server_as_ctx(srv);
        EXPECT_NE(ctx, nullptr);
        if (attach) {
            EXPECT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
        }
    }
    doca_ctx_states state() const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        doca_ctx_get_state(ctx, &s);
        return s;
    }
    void stop()
    {
        if (state() == DOCA_CTX_STATE_IDLE)
            return;
        doca_ctx_stop(ctx);
        auto end = sc_test::clock::now() + std::chrono::seconds(5);
        while (state() != DOCA_CTX_STATE_IDLE && sc_test::clock::now() < end)
            doca_pe_progress(pe);
    }
    ~server_ctx()
    {
        if (srv) {
            stop();
            EXPECT_EQ(doca_comch_server_destroy(srv), DOCA_SUCCESS);
        }
        if (pe) {
            EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        }
        if (rep) {
            EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
        }
        if (dev) {
            EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
        }
    }
};

void state_cb(const union doca_data, doca_ctx *, doca_ctx_states, doca_ctx_states) {}

} // namespace

// =============================================================================================
// doca_error.h
// =============================================================================================

TEST_F(ErrorBadInput, NamesAndDescriptionsOfEveryValue)
{
    std::vector<std::string> seen;
    for (int e = DOCA_SUCCESS; e <= DOCA_ERROR_SKIPPED; ++e) {
        const char *name = doca_error_get_name(static_cast<doca_error_t>(e));
        const char *descr = doca_error_get_descr(static_cast<doca_error_t>(e));
        ASSERT_NE(name, nullptr);
        ASSERT_NE(descr, nullptr);
        EXPECT_EQ(std::string(name).rfind(e == 0 ? "DOCA_SUCCESS" : "DOCA_ERROR_", 0), 0u) << name;
        EXPECT_NE(std::string(descr), "") << name;
        EXPECT_NE(std::string(descr), "unrecognized error code") << name;
        seen.emplace_back(name);
    }
    EXPECT_STREQ(doca_error_get_name(DOCA_ERROR_BAD_STATE), "DOCA_ERROR_BAD_STATE");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_INVALID_VALUE),
                 "Invalid input"); // docs/logging_and_argp.md 5
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end()) << "two codes share a name";
}

TEST_F(ErrorBadInput, ValuesOutsideTheEnum)
{
    // 31 is the only unknown value a C++ caller may form (the enum's value range is 0..31); the
    // negative and large values a C caller can pass are covered by test_headers_c.c.
    for (int e : {31}) {
        EXPECT_STREQ(doca_error_get_name(static_cast<doca_error_t>(e)), "unrecognized error code")
            << e;
        EXPECT_STREQ(doca_error_get_descr(static_cast<doca_error_t>(e)), "unrecognized error code")
            << e;
    }
}

// =============================================================================================
// doca_version.h
// =============================================================================================

TEST_F(VersionBadInput, RuntimeVersionIsTheCompiledOne)
{
    ASSERT_NE(doca_version_runtime(), nullptr);
    EXPECT_STREQ(doca_version_runtime(), DOCA_VERSION_STRING);
    EXPECT_STREQ(doca_version(), DOCA_VERSION_STRING);
    EXPECT_EQ(doca_version_runtime(), doca_version_runtime()) << "a static string";
}

// =============================================================================================
// doca_dev.h
// =============================================================================================

TEST_F(DevBadInput, CreateAndDestroyList)
{
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_create_list, nullptr, &n);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_create_list, &list, nullptr);
    EXPECT_EQ(list, nullptr) << "outputs are written only on success";
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_destroy_list, nullptr);
    doca_devinfo *not_a_list[4] = {};
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_destroy_list, not_a_list);

    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    EXPECT_GE(n, 5u); // built-in machine: 3 host functions + 2 DPU devices (docs/topology.md 1)
    ASSERT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
    // A list destroyed once is no longer live (pointer compared, never dereferenced).
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_destroy_list, list);
}

TEST_F(DevBadInput, RepresentorLists)
{
    doca_dev *dpu = sc_test::open_dev("03:00.0");
    doca_dev *host = sc_test::open_dev("b1:00.0");
    ASSERT_NE(dpu, nullptr);
    ASSERT_NE(host, nullptr);
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list, nullptr,
                   DOCA_DEVINFO_REP_FILTER_NET, &list, &n);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list, junk<doca_dev>(),
                   DOCA_DEVINFO_REP_FILTER_NET, &list, &n);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list, dpu,
                   DOCA_DEVINFO_REP_FILTER_NET, nullptr, &n);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list, dpu,
                   DOCA_DEVINFO_REP_FILTER_NET, &list, nullptr);
    // Undefined filter bits.
    for (int filter : {1, 8, 1 << 3 | DOCA_DEVINFO_REP_FILTER_NET, INT_MIN, -1})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list, dpu, filter, &list,
                       &n);
    // Representors exist only on the DPU side.
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_devinfo_rep_create_list, host,
                   DOCA_DEVINFO_REP_FILTER_ALL, &list, &n);
    EXPECT_EQ(list, nullptr);

    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_destroy_list, nullptr);
    doca_devinfo_rep *not_a_list[4] = {};
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_destroy_list, not_a_list);
    ASSERT_EQ(doca_devinfo_rep_create_list(
                  dpu, DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED, &list, &n),
              DOCA_SUCCESS);
    EXPECT_EQ(n, 2u); // pf0hpf, pf0vf0
    ASSERT_EQ(doca_devinfo_rep_destroy_list(list), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_destroy_list, list);

    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
}

TEST_F(DevBadInput, OpenAndClose)
{
    dev_list l;
    doca_devinfo *info = l.find("03:00.0");
    ASSERT_NE(info, nullptr);
    doca_dev *dev = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_open, nullptr, &dev);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_open, junk<doca_devinfo>(), &dev);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_open, info, nullptr);
    EXPECT_EQ(dev, nullptr);
    // NULL: nothing to close (NVIDIA's DMA samples close a device they already closed and
    // cleared, docs/refusal_audit.md row 10).
    EXPECT_EQ(doca_dev_close(nullptr), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_close, junk<doca_dev>());
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_accelerate_resource_reclaim, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_accelerate_resource_reclaim,
                   junk<doca_dev>());
    EXPECT_LOGGED(doca_dev_as_devinfo, EXPECT_EQ(doca_dev_as_devinfo(nullptr), nullptr));
    EXPECT_LOGGED(doca_dev_as_devinfo, EXPECT_EQ(doca_dev_as_devinfo(junk<doca_dev>()), nullptr));

    ASSERT_EQ(doca_dev_open(info, &dev), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_accelerate_resource_reclaim(dev), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_as_devinfo(dev), info);
    // Reference counted: a second open gives the same handle and needs a second close.
    doca_dev *again = nullptr;
    ASSERT_EQ(doca_dev_open(info, &again), DOCA_SUCCESS);
    EXPECT_EQ(again, dev);
    EXPECT_EQ(doca_dev_close(again), DOCA_SUCCESS);

    // The last close while a representor opened through it is still open (NVIDIA's time_sync
    // order) succeeds, with no log line above debug: the handle is closed, the representor keeps
    // working and frees the device when it is closed itself.
    {
        rep_list reps(dev);
        doca_devinfo_rep *ri = reps.find("b1:00.0");
        ASSERT_NE(ri, nullptr);
        doca_dev_rep *rep = nullptr;
        ASSERT_EQ(doca_dev_rep_open(ri, &rep), DOCA_SUCCESS);
        size_t mark = sdk_log::mark();
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
        EXPECT_EQ(sdk_log::errors_since(mark), 0u);
        EXPECT_NE(doca_dev_rep_as_devinfo(rep), nullptr);
        EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
    }
    // Likewise while a memory map still uses it (secure_channel closes its device, then
    // destroys the mmap): the mmap still destroys cleanly.
    dev = sc_test::open_dev("b1:00.0");
    ASSERT_NE(dev, nullptr);
    doca_mmap *mmap = nullptr;
    ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    // Closed: no longer an open device.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_close, dev);
}

TEST_F(DevBadInput, RepresentorOpenAndClose)
{
    doca_dev *dev = sc_test::open_dev("03:00.0");
    ASSERT_NE(dev, nullptr);
    doca_devinfo_rep *ri = nullptr;
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n),
              DOCA_SUCCESS);
    for (uint32_t i = 0; i < n && !ri; ++i) {
        uint8_t eq = 0;
        ASSERT_EQ(doca_devinfo_rep_is_equal_pci_addr(list[i], "b1:00.0", &eq), DOCA_SUCCESS);
        if (eq)
            ri = list[i];
    }
    ASSERT_NE(ri, nullptr);
    doca_dev_rep *rep = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_open, nullptr, &rep);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_open, junk<doca_devinfo_rep>(), &rep);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_open, ri, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_close, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_close, junk<doca_dev_rep>());
    EXPECT_LOGGED(doca_dev_rep_as_devinfo, EXPECT_EQ(doca_dev_rep_as_devinfo(nullptr), nullptr));
    EXPECT_LOGGED(doca_dev_rep_as_devinfo,
                  EXPECT_EQ(doca_dev_rep_as_devinfo(junk<doca_dev_rep>()), nullptr));

    ASSERT_EQ(doca_dev_rep_open(ri, &rep), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_rep_as_devinfo(rep), ri);
    EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_close, rep); // no longer open

    // The managing device closed: the representor cannot be opened (doca_dev.h: BAD_STATE).
    ASSERT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_dev_rep_open, ri, &rep);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(list), DOCA_SUCCESS);
}

TEST_F(DevBadInput, DeviceGetters)
{
    dev_list l;
    doca_devinfo *host = l.find("b1:00.0");
    doca_devinfo *dpu = l.find("03:00.0");
    ASSERT_NE(host, nullptr);
    ASSERT_NE(dpu, nullptr);
    const doca_devinfo *bad = junk<doca_devinfo>();
    char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
    uint8_t u8 = 0, bytes[DOCA_DEVINFO_IFACE_NAME_SIZE];
    char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    doca_pci_func_type ft{};

    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_addr_str, nullptr, pci);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_addr_str, bad, pci);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_addr_str, host, nullptr);
    ASSERT_EQ(doca_devinfo_get_pci_addr_str(host, pci), DOCA_SUCCESS);
    EXPECT_STREQ(pci, "0000:b1:00.0");

    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr, nullptr, "b1:00.0",
                   &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr, host, nullptr, &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr, host, "b1:00.0",
                   nullptr);

    // Sized getters: NULL devinfo, NULL buffer, buffer one byte too small, size 0.
    struct sized {
        const char *fn;
        doca_error_t (*get)(const doca_devinfo *, uint8_t *, uint32_t);
        uint32_t need;
    };
    const sized getters[] = {
        {"doca_devinfo_get_ipv4_addr", doca_devinfo_get_ipv4_addr, DOCA_DEVINFO_IPV4_ADDR_SIZE},
        {"doca_devinfo_get_ipv6_addr", doca_devinfo_get_ipv6_addr, DOCA_DEVINFO_IPV6_ADDR_SIZE},
        {"doca_devinfo_get_mac_addr", doca_devinfo_get_mac_addr, DOCA_DEVINFO_MAC_ADDR_SIZE},
    };
    for (const auto &g : getters) {
        SCOPED_TRACE(g.fn);
        for (auto [info, buf, size] :
             {std::tuple<const doca_devinfo *, uint8_t *, uint32_t>{nullptr, bytes, g.need},
              {bad, bytes, g.need},
              {host, nullptr, g.need},
              {host, bytes, g.need - 1},
              {host, bytes, 0}}) {
            size_t m = sdk_log::mark();
            EXPECT_EQ(g.get(info, buf, size), DOCA_ERROR_INVALID_VALUE);
            EXPECT_TRUE(sdk_log::named_since(m, g.fn)) << sdk_log::since(m);
        }
        EXPECT_EQ(g.get(host, bytes, g.need), DOCA_SUCCESS);
    }
    struct named {
        const char *fn;
        doca_error_t (*get)(const doca_devinfo *, char *, uint32_t);
        uint32_t need;
    };
    const named name_getters[] = {
        {"doca_devinfo_get_iface_name", doca_devinfo_get_iface_name, DOCA_DEVINFO_IFACE_NAME_SIZE},
        {"doca_devinfo_get_ibdev_name", doca_devinfo_get_ibdev_name, DOCA_DEVINFO_IBDEV_NAME_SIZE},
    };
    for (const auto &g : name_getters) {
        SCOPED_TRACE(g.fn);
        for (auto [info, buf, size] :
             {std::tuple<const doca_devinfo *, char *, uint32_t>{nullptr, name, g.need},
              {bad, name, g.need},
              {host, nullptr, g.need},
              {host, name, g.need - 1},
              {host, name, 0}}) {
            size_t m = sdk_log::mark();
            EXPECT_EQ(g.get(info, buf, size), DOCA_ERROR_INVALID_VALUE);
            EXPECT_TRUE(sdk_log::named_since(m, g.fn)) << sdk_log::since(m);
        }
        EXPECT_EQ(g.get(host, name, g.need), DOCA_SUCCESS);
        EXPECT_GT(std::strlen(name), 0u);
    }

    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_lid, nullptr, &u16);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_lid, host, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_active_rate, nullptr, &u64);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_active_rate, host, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_vhca_id, nullptr, &u16);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_vhca_id, host, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_cap_is_hotplug_manager_supported, nullptr,
                   &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_cap_is_hotplug_manager_supported, host,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_cap_is_notification_moderation_supported,
                   nullptr, &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_cap_is_notification_moderation_supported,
                   host, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_cap_is_filter_all_supported, nullptr,
                   &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_cap_is_filter_all_supported, dpu,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_cap_is_filter_net_supported, nullptr,
                   &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_cap_is_filter_net_supported, dpu,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_cap_is_filter_emulated_supported,
                   nullptr, &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_cap_is_filter_emulated_supported, dpu,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE,
                   doca_devinfo_cap_is_accelerate_resource_reclaim_supported, nullptr, &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE,
                   doca_devinfo_cap_is_accelerate_resource_reclaim_supported, host, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_func_type, nullptr, &ft);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_func_type, host, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_sf_index, nullptr, &u32);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_sf_index, host, nullptr);
    // Not a sub-function (logged at debug level: docs/topology.md 4.5).
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_devinfo_get_sf_index, host, &u32);

    // The valid forms answer.
    EXPECT_EQ(doca_devinfo_rep_cap_is_filter_net_supported(dpu, &u8), DOCA_SUCCESS);
    EXPECT_EQ(u8, 1);
    EXPECT_EQ(doca_devinfo_rep_cap_is_filter_net_supported(host, &u8), DOCA_SUCCESS);
    EXPECT_EQ(u8, 0);
    EXPECT_EQ(doca_devinfo_get_pci_func_type(host, &ft), DOCA_SUCCESS);
    EXPECT_EQ(ft, DOCA_PCI_FUNC_TYPE_PF);
}

TEST_F(DevBadInput, MalformedPciAddresses)
{
    dev_list l;
    doca_devinfo *host = l.find("b1:00.0");
    ASSERT_NE(host, nullptr);
    doca_dev *dpu = sc_test::open_dev("03:00.0");
    ASSERT_NE(dpu, nullptr);
    rep_list reps(dpu);
    doca_devinfo_rep *rep = reps.find("b1:00.0");
    ASSERT_NE(rep, nullptr);
    // docs/topology.md 4.4: exactly BB:DD.F or DDDD:BB:DD.F, device <= 1f, function 0-7.
    for (const char *bad :
         {"", "b1", "b1:00", "b1:00.", "b1:00.8", "b1:20.0", "b1:00.0x", " b1:00.0", "b1:00.0 ",
          "g1:00.0", "00000:b1:00.0", "0000:b1:00", "0000-b1:00.0", "b1.00.0", "0000:b1:00.0.0"}) {
        SCOPED_TRACE(std::string("\"") + bad + "\"");
        uint8_t eq = 7;
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr, host, bad, &eq);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_is_equal_pci_addr, rep, bad, &eq);
        EXPECT_EQ(eq, 7) << "outputs are written only on success";
    }
    for (const char *good : {"b1:00.0", "B1:00.0", "0000:b1:00.0", "0000:B1:00.0"}) {
        uint8_t eq = 0;
        EXPECT_EQ(doca_devinfo_is_equal_pci_addr(host, good, &eq), DOCA_SUCCESS) << good;
        EXPECT_EQ(eq, 1) << good;
        EXPECT_EQ(doca_devinfo_rep_is_equal_pci_addr(rep, good, &eq), DOCA_SUCCESS) << good;
        EXPECT_EQ(eq, 1) << good;
    }
    uint8_t eq = 1;
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(host, "0001:b1:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 0);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
}

TEST_F(DevBadInput, RepresentorGetters)
{
    doca_dev *dpu = sc_test::open_dev("03:00.0");
    ASSERT_NE(dpu, nullptr);
    {
        rep_list reps(dpu);
        doca_devinfo_rep *rep = reps.find("b1:00.0");
        ASSERT_NE(rep, nullptr);
        const doca_devinfo_rep *bad = junk<doca_devinfo_rep>();
        char vuid[DOCA_DEVINFO_REP_VUID_SIZE];
        char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
        char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
        doca_pci_func_type ft{};
        uint8_t u8 = 0;
        uint16_t u16 = 0;

        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vuid, nullptr, vuid,
                       sizeof vuid);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vuid, bad, vuid, sizeof vuid);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vuid, rep, nullptr,
                       sizeof vuid);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vuid, rep, vuid,
                       DOCA_DEVINFO_REP_VUID_SIZE - 1);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vuid, rep, vuid, 0);
        EXPECT_EQ(doca_devinfo_rep_get_vuid(rep, vuid, sizeof vuid), DOCA_SUCCESS);

        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_pci_addr_str, nullptr, pci);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_pci_addr_str, bad, pci);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_pci_addr_str, rep, nullptr);
        EXPECT_EQ(doca_devinfo_rep_get_pci_addr_str(rep, pci), DOCA_SUCCESS);
        EXPECT_STREQ(pci, "0000:b1:00.0");

        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_pci_func_type, nullptr, &ft);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_pci_func_type, rep, nullptr);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_is_hotplug, nullptr, &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_is_hotplug, rep, nullptr);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_iface_name, nullptr, iface,
                       sizeof iface);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_iface_name, rep, nullptr,
                       sizeof iface);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_iface_name, rep, iface,
                       DOCA_DEVINFO_IFACE_NAME_SIZE - 1);
        EXPECT_EQ(doca_devinfo_rep_get_iface_name(rep, iface, sizeof iface), DOCA_SUCCESS);
        EXPECT_STREQ(iface, "pf0hpf");
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vhca_id, nullptr, &u16);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vhca_id, rep, nullptr);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_is_equal_pci_addr, nullptr,
                       "b1:00.0", &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_is_equal_pci_addr, rep, nullptr,
                       &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_is_equal_pci_addr, rep, "b1:00.0",
                       nullptr);
    }
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
}

// =============================================================================================
// doca_ctx.h (on a Comch server, the context that needs no peer)
// =============================================================================================

TEST_F(CtxBadInput, NullAndForeignContexts)
{
    union doca_data ud {};
    size_t n = 0;
    doca_ctx_states st{};
    doca_ctx *bad = junk<doca_ctx>();
    for (doca_ctx *c : {static_cast<doca_ctx *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_start, c);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_stop, c);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_num_inflight_tasks, c, &n);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_datapath_on_gpu, c, junk<doca_gpu>());
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_user_data, c, ud);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_user_data, c, &ud);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_state_changed_cb, c, state_cb);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_state, c, &st);
        EXPECT_LOGGED(doca_ctx_flush_tasks, doca_ctx_flush_tasks(c));
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_datapath_on_dpa, c, junk<doca_dpa>());
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_completion_vector, c, 0);
    }
    uint32_t vectors = 0;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_cap_get_num_completion_vectors, nullptr,
                   &vectors);
    dev_list l;
    doca_devinfo *info = l.find("03:00.0");
    ASSERT_NE(info, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_cap_get_num_completion_vectors, info,
                   nullptr);
    EXPECT_EQ(doca_ctx_cap_get_num_completion_vectors(info, &vectors), DOCA_SUCCESS);
    EXPECT_EQ(vectors, 1u);
}

TEST_F(CtxBadInput, NullOutputsOnALiveContext)
{
    server_ctx s("ctx-null-outputs");
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_num_inflight_tasks, s.ctx, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_user_data, s.ctx, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_state, s.ctx, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_datapath_on_gpu, s.ctx, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_datapath_on_dpa, s.ctx, nullptr);
    // A NULL callback is not bad input: it removes the callback.
    EXPECT_EQ(doca_ctx_set_state_changed_cb(s.ctx, nullptr), DOCA_SUCCESS);
    // Unknown completion vectors.
    for (uint32_t v : {1u, 2u, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_completion_vector, s.ctx, v);
    EXPECT_EQ(doca_ctx_set_completion_vector(s.ctx, 0), DOCA_SUCCESS);
    // No GPU or DPA is emulated.
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_ctx_set_datapath_on_gpu, s.ctx, junk<doca_gpu>());
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_ctx_set_datapath_on_dpa, s.ctx, junk<doca_dpa>());
    // The valid forms.
    union doca_data ud {};
    ud.u64 = 42;
    EXPECT_EQ(doca_ctx_set_user_data(s.ctx, ud), DOCA_SUCCESS);
    ud.u64 = 0;
    EXPECT_EQ(doca_ctx_get_user_data(s.ctx, &ud), DOCA_SUCCESS);
    EXPECT_EQ(ud.u64, 42u);
    size_t n = 99;
    EXPECT_EQ(doca_ctx_get_num_inflight_tasks(s.ctx, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
    doca_ctx_flush_tasks(s.ctx); // nothing to flush; must not crash
}

TEST_F(CtxBadInput, WrongStates)
{
    // Not attached to a progress engine.
    {
        server_ctx s("ctx-unattached", false);
        EXPECT_REFUSED(DOCA_ERROR_NOT_CONNECTED, doca_ctx_start, s.ctx);
        enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
        EXPECT_EQ(doca_ctx_get_state(s.ctx, &st), DOCA_SUCCESS);
        EXPECT_EQ(st, DOCA_CTX_STATE_IDLE);
        EXPECT_EQ(doca_pe_connect_ctx(s.pe, s.ctx),
                  DOCA_SUCCESS); // so that the destructor can clean up
    }
    server_ctx s("ctx-states");
    // Stop while IDLE: nothing to do, a success (NVIDIA's DMA samples stop twice).
    EXPECT_EQ(doca_ctx_stop(s.ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(s.ctx), DOCA_SUCCESS);
    ASSERT_EQ(s.state(), DOCA_CTX_STATE_RUNNING);
    // Start while RUNNING; IDLE-only setters while RUNNING.
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_ctx_start, s.ctx);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_ctx_set_datapath_on_gpu, s.ctx, junk<doca_gpu>());
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_ctx_set_datapath_on_dpa, s.ctx, junk<doca_dpa>());
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_ctx_set_completion_vector, s.ctx, 0);
    // Allowed in any state (doca_ctx.h / docs/design.md).
    union doca_data ud {};
    EXPECT_EQ(doca_ctx_set_user_data(s.ctx, ud), DOCA_SUCCESS);
    EXPECT_EQ(doca_ctx_set_state_changed_cb(s.ctx, state_cb), DOCA_SUCCESS);
    // Connect to a second engine while RUNNING and attached: NOT_PERMITTED (already attached).
    doca_pe *other = nullptr;
    ASSERT_EQ(doca_pe_create(&other), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_pe_connect_ctx, other, s.ctx);
    EXPECT_EQ(doca_pe_destroy(other), DOCA_SUCCESS);
    // Destroying the engine of a running context.
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_pe_destroy, s.pe);
    // Stop of a server with no connection: nothing to drain, IDLE inside the call
    // (include/doca_ctx.h); stopping again is a success too.
    EXPECT_EQ(doca_ctx_stop(s.ctx), DOCA_SUCCESS);
    EXPECT_EQ(s.state(), DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(doca_ctx_stop(s.ctx), DOCA_SUCCESS);
}

// =============================================================================================
// doca_pe.h
// =============================================================================================

TEST_F(PeBadInput, EngineFunctions)
{
    doca_pe *bad = junk<doca_pe>();
    doca_notification_handle_t h = doca_event_invalid_handle;
    size_t n = 0;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_create, nullptr);
    for (doca_pe *p : {static_cast<doca_pe *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_destroy, p);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_get_notification_handle, p, &h);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_clear_notification, p, 0);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_request_notification, p);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_get_num_inflight_tasks, p, &n);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_set_event_mode, p,
                       DOCA_PE_EVENT_MODE_PROGRESS_ALL);
    }
    EXPECT_EQ(doca_pe_progress(nullptr), 0) << "doca_pe.h: 0 for NULL";

    doca_pe *pe = nullptr, *other = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_create(&other), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_get_notification_handle, pe, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_get_num_inflight_tasks, pe, nullptr);
    doca_notification_handle_t mine = doca_event_invalid_handle, theirs = doca_event_invalid_handle;
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &mine), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_get_notification_handle(other, &theirs), DOCA_SUCCESS);
    EXPECT_GE(mine, 0);
    EXPECT_NE(mine, theirs);
    // The handle argument is not checked: NVIDIA's pe_event sample passes 0. Whatever it is,
    // the call clears this engine's notification, with no log line.
    for (doca_notification_handle_t h2 :
         {doca_notification_handle_t(0), theirs, doca_event_invalid_handle}) {
        EXPECT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
        size_t mark = sdk_log::mark();
        EXPECT_EQ(doca_pe_clear_notification(pe, h2), DOCA_SUCCESS);
        EXPECT_EQ(sdk_log::errors_since(mark), 0u);
    }
    EXPECT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_clear_notification(pe, mine), DOCA_SUCCESS);
    // Unknown event modes: doca_pe_event_mode has no unknown value C++ may form (its value range
    // is 0..1); test_headers_c.c passes 2, 7, -1 and 1000 from C.
    EXPECT_EQ(doca_pe_set_event_mode(pe, DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_set_event_mode(pe, DOCA_PE_EVENT_MODE_PROGRESS_ALL), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_get_num_inflight_tasks(pe, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(doca_pe_progress(pe), 0);
    EXPECT_EQ(doca_pe_destroy(other), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}

TEST_F(PeBadInput, ConnectContext)
{
    server_ctx s("pe-connect", false);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_connect_ctx, nullptr, s.ctx);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_connect_ctx, junk<doca_pe>(), s.ctx);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_connect_ctx, s.pe, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_connect_ctx, s.pe, junk<doca_ctx>());
    ASSERT_EQ(doca_pe_connect_ctx(s.pe, s.ctx), DOCA_SUCCESS);
    // Once per context.
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_pe_connect_ctx, s.pe, s.ctx);
    doca_pe *other = nullptr;
    ASSERT_EQ(doca_pe_create(&other), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_pe_connect_ctx, other, s.ctx);
    EXPECT_EQ(doca_pe_destroy(other), DOCA_SUCCESS);
    // An engine with an attached (even IDLE) context cannot be destroyed.
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_pe_destroy, s.pe);
}

TEST_F(PeBadInput, TaskFunctionsWithNullTasks)
{
    // Task functions with real tasks are covered by test_bad_input_comch.cpp (tasks only exist
    // on a connection).
    doca_task *bad = junk<doca_task>();
    for (doca_task *t : {static_cast<doca_task *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_submit, t);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_submit_ex, t,
                       DOCA_TASK_SUBMIT_FLAG_FLUSH);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_try_submit, t);
        EXPECT_LOGGED(doca_task_free, doca_task_free(t));
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_get_status, t);
        union doca_data ud {};
        ud.u64 = 5;
        EXPECT_LOGGED(doca_task_set_user_data, doca_task_set_user_data(t, ud));
        EXPECT_LOGGED(doca_task_get_user_data, EXPECT_EQ(doca_task_get_user_data(t).u64, 0u));
        EXPECT_LOGGED(doca_task_get_ctx, EXPECT_EQ(doca_task_get_ctx(t), nullptr));
    }
}

TEST_F(PeBadInput, TaskBatchesAreNotSupported)
{
    doca_task_batch *b = junk<doca_task_batch>();
    for (doca_task_batch *batch : {static_cast<doca_task_batch *>(nullptr), b}) {
        EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_task_batch_submit, batch);
        EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_task_batch_try_submit, batch);
        EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_task_batch_get_status, batch);
        EXPECT_LOGGED(doca_task_batch_free, doca_task_batch_free(batch));
        union doca_data ud {};
        ud.u64 = 1;
        EXPECT_LOGGED(doca_task_batch_set_user_data, doca_task_batch_set_user_data(batch, ud));
        EXPECT_LOGGED(doca_task_batch_get_user_data,
                      EXPECT_EQ(doca_task_batch_get_user_data(batch).u64, 0u));
        EXPECT_LOGGED(doca_task_batch_get_ctx, EXPECT_EQ(doca_task_batch_get_ctx(batch), nullptr));
        EXPECT_LOGGED(doca_task_batch_get_ctx_user_data,
                      EXPECT_EQ(doca_task_batch_get_ctx_user_data(batch).u64, 0u));
        EXPECT_LOGGED(doca_task_batch_get_tasks_num,
                      EXPECT_EQ(doca_task_batch_get_tasks_num(batch), 0));
    }
}

// =============================================================================================
// doca_mmap.h
// =============================================================================================

namespace {
alignas(64) char memory[64 * 1024];

struct mmap_fixture {
    doca_dev *dev = sc_test::open_dev("03:00.0");
    doca_dev *dev2 = sc_test::open_dev("03:00.1");
    doca_mmap *mmap = nullptr;
    mmap_fixture()
    {
        EXPECT_NE(dev, nullptr);
        EXPECT_NE(dev2, nullptr);
        EXPECT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
    }
    ~mmap_fixture()
    {
        if (mmap) {
            EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_dev_close(dev2), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    }
};
} // namespace

TEST_F(MmapBadInput, NullAndForeignMaps)
{
    mmap_fixture f;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_create, nullptr);
    doca_mmap *bad = junk<doca_mmap>();
    const void *desc = nullptr;
    size_t len = 0;
    void *addr = nullptr;
    union doca_data ud {};
    uint32_t u32 = 0;
    uint8_t u8 = 0;
    doca_dpa_dev_mmap_t dpa = 0;
    for (doca_mmap *m : {static_cast<doca_mmap *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_destroy, m);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_start, m);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_stop, m);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_add_dev, m, f.dev);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_rm_dev, m, f.dev);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_pci, m, f.dev, &desc, &len);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_rdma, m, f.dev, &desc, &len);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_dev_get_dpa_handle, m, f.dev, &dpa);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange, m, memory, sizeof memory);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_dmabuf_memrange, m, 0, memory, 0,
                       sizeof memory);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_dpa_memrange, m, junk<doca_dpa>(), 0,
                       16);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_memrange, m, &addr, &len);
        EXPECT_REFUSED(
            DOCA_ERROR_INVALID_VALUE, doca_mmap_set_free_cb, m, [](void *, size_t, void *) {},
            nullptr);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_user_data, m, &ud);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_max_num_devices, m, &u32);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_num_bufs, m, &u32);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_exported, m, &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_from_export, m, &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_max_num_devices, m, 4);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_permissions, m,
                       DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_user_data, m, ud);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_enable_thread_safety, m);
    }
    // NULL second arguments on a real map.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_add_dev, f.mmap, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_add_dev, f.mmap, junk<doca_dev>());
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_rm_dev, f.mmap, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_pci, f.mmap, nullptr, &desc, &len);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_pci, f.mmap, f.dev, nullptr, &len);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_pci, f.mmap, f.dev, &desc, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_rdma, f.mmap, nullptr, &desc, &len);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_rdma, f.mmap, f.dev, nullptr, &len);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_export_rdma, f.mmap, f.dev, &desc, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_dev_get_dpa_handle, f.mmap, nullptr, &dpa);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_dev_get_dpa_handle, f.mmap, f.dev, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_memrange, f.mmap, nullptr, &len);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_memrange, f.mmap, &addr, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_free_cb, f.mmap, nullptr, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_user_data, f.mmap, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_max_num_devices, f.mmap, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_num_bufs, f.mmap, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_exported, f.mmap, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_from_export, f.mmap, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_cap_is_export_pci_supported, nullptr, &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_cap_is_export_pci_supported,
                   doca_dev_as_devinfo(f.dev), nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_cap_is_create_from_export_pci_supported,
                   nullptr, &u8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_cap_is_create_from_export_pci_supported,
                   doca_dev_as_devinfo(f.dev), nullptr);
    EXPECT_EQ(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(f.dev), &u8), DOCA_SUCCESS);
    EXPECT_EQ(u8, 1) << "every function exports (doca_mmap.h)";

    // create_from_export: NULL descriptor, zero length, NULL or wrong-kind device, NULL output.
    doca_mmap *imported = nullptr;
    char blob[16] = {};
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_create_from_export, nullptr, nullptr,
                   sizeof blob, f.dev, &imported);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_create_from_export, nullptr, blob, 0, f.dev,
                   &imported);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_create_from_export, nullptr, blob,
                   sizeof blob, nullptr, &imported);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_create_from_export, nullptr, blob,
                   sizeof blob, junk<doca_dev>(), &imported);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_create_from_export, nullptr, blob,
                   sizeof blob, f.dev, nullptr);
    // Bytes that are not a descriptor: refused, and the line says why.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_create_from_export, nullptr, blob,
                   sizeof blob, f.dev, &imported);
    EXPECT_EQ(imported, nullptr);
}

TEST_F(MmapBadInput, MemrangeAndPermissions)
{
    mmap_fixture f;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange, f.mmap, nullptr,
                   sizeof memory);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange, f.mmap, memory, 0);
    // A range that wraps around the address space.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange, f.mmap,
                   reinterpret_cast<void *>(UINTPTR_MAX - 15), 64);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange, f.mmap, memory, SIZE_MAX);
    void *addr = nullptr;
    size_t len = 0;
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_get_memrange, f.mmap, &addr, &len); // never set
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_start, f.mmap); // no range yet
    ASSERT_EQ(doca_mmap_set_memrange(f.mmap, memory, sizeof memory), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_memrange, f.mmap, memory,
                   128); // once per map
    ASSERT_EQ(doca_mmap_get_memrange(f.mmap, &addr, &len), DOCA_SUCCESS);
    EXPECT_EQ(addr, memory);
    EXPECT_EQ(len, sizeof memory);

    // Undefined bits and the exclusive PCI pair.
    for (uint32_t mask :
         {1u << 7, 1u << 8, 1u << 31, 0xffffffffu,
          uint32_t(DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_permissions, f.mmap, mask);
    EXPECT_EQ(doca_mmap_set_permissions(f.mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                                    DOCA_ACCESS_FLAG_PCI_READ_WRITE),
              DOCA_SUCCESS);
    // Not emulated (doca_mmap.h): dma-buf and DPA ranges.
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_mmap_set_dmabuf_memrange, f.mmap, 3, memory, 0,
                   128);
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_mmap_set_dpa_memrange, f.mmap, junk<doca_dpa>(),
                   0, 128);
}

TEST_F(MmapBadInput, DevicesAndLimits)
{
    mmap_fixture f;
    EXPECT_REFUSED(DOCA_ERROR_NOT_FOUND, doca_mmap_rm_dev, f.mmap, f.dev); // not registered
    ASSERT_EQ(doca_mmap_add_dev(f.mmap, f.dev), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_ALREADY_EXIST, doca_mmap_add_dev, f.mmap, f.dev);
    ASSERT_EQ(doca_mmap_add_dev(f.mmap, f.dev2), DOCA_SUCCESS);
    uint32_t max = 0;
    ASSERT_EQ(doca_mmap_get_max_num_devices(f.mmap, &max), DOCA_SUCCESS);
    EXPECT_EQ(max, 16u); // doca_mmap.h: 16 unless set
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_max_num_devices, f.mmap, 0);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_max_num_devices, f.mmap,
                   1); // below the 2 registered
    ASSERT_EQ(doca_mmap_set_max_num_devices(f.mmap, 2), DOCA_SUCCESS);
    doca_dev *host = sc_test::open_dev("b1:00.0");
    ASSERT_NE(host, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_NO_MEMORY, doca_mmap_add_dev, f.mmap, host); // the map is full
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_rm_dev(f.mmap, f.dev2), DOCA_SUCCESS);
}

TEST_F(MmapBadInput, StartedMapRefusesConfiguration)
{
    mmap_fixture f;
    ASSERT_EQ(doca_mmap_set_memrange(f.mmap, memory, sizeof memory), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(f.mmap, f.dev), DOCA_SUCCESS);
    const void *desc = nullptr;
    size_t len = 0;
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_export_pci, f.mmap, f.dev, &desc,
                   &len);                                         // not started
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_stop, f.mmap); // not started
    ASSERT_EQ(doca_mmap_start(f.mmap), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_start, f.mmap);
    union doca_data ud {};
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_add_dev, f.mmap, f.dev2);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_rm_dev, f.mmap, f.dev);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_max_num_devices, f.mmap, 8);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_set_permissions, f.mmap,
                   DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_set_user_data, f.mmap, ud);
    EXPECT_REFUSED(
        DOCA_ERROR_BAD_STATE, doca_mmap_set_free_cb, f.mmap, [](void *, size_t, void *) {},
        nullptr);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_mmap_enable_thread_safety, f.mmap);
    // Export: no PCI permission (default LOCAL_READ_WRITE); then a device that is not registered.
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_export_pci, f.mmap, f.dev, &desc, &len);
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_mmap_export_rdma, f.mmap, f.dev, &desc, &len);
    doca_dpa_dev_mmap_t dpa = 0;
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_mmap_dev_get_dpa_handle, f.mmap, f.dev, &dpa);
    ASSERT_EQ(doca_mmap_stop(f.mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_permissions(f.mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(f.mmap), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_NOT_FOUND, doca_mmap_export_pci, f.mmap, f.dev2, &desc, &len);
    uint8_t exported = 1;
    EXPECT_EQ(doca_mmap_get_exported(f.mmap, &exported), DOCA_SUCCESS);
    EXPECT_EQ(exported, 0);
    EXPECT_EQ(doca_mmap_export_pci(f.mmap, f.dev, &desc, &len), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_get_exported(f.mmap, &exported), DOCA_SUCCESS);
    EXPECT_EQ(exported, 1);
    // Exported: it can only be destroyed (which revokes the export).
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_stop, f.mmap);
}

TEST_F(MmapBadInput, BufsKeepTheMap)
{
    mmap_fixture f;
    ASSERT_EQ(doca_mmap_set_memrange(f.mmap, memory, sizeof memory), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(f.mmap), DOCA_SUCCESS);
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *buf = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, f.mmap, memory, 64, &buf), DOCA_SUCCESS);
    uint32_t nbufs = 0;
    EXPECT_EQ(doca_mmap_get_num_bufs(f.mmap, &nbufs), DOCA_SUCCESS);
    EXPECT_EQ(nbufs, 1u);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_stop, f.mmap);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_destroy, f.mmap);
    ASSERT_EQ(doca_buf_dec_refcount(buf, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

// =============================================================================================
// doca_buf_inventory.h
// =============================================================================================

namespace {
struct buf_fixture {
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    explicit buf_fixture(size_t elements = 8, bool start = true)
    {
        EXPECT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_memrange(mmap, memory, sizeof memory), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_inventory_create(elements, &inv), DOCA_SUCCESS);
        if (start) {
            EXPECT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
        }
    }
    doca_buf *get(size_t offset, size_t len)
    {
        doca_buf *b = nullptr;
        EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory + offset, len, &b),
                  DOCA_SUCCESS);
        return b;
    }
    ~buf_fixture()
    {
        EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    }
};
} // namespace

TEST_F(InventoryBadInput, CreateAndLifecycle)
{
    doca_buf_inventory *inv = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_create, 0, &inv);
    if constexpr (sizeof(size_t) > sizeof(uint32_t))
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_create, size_t(UINT32_MAX) + 1,
                       &inv);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_create, 4, nullptr);
    EXPECT_EQ(inv, nullptr);
    doca_buf_inventory *bad = junk<doca_buf_inventory>();
    union doca_data ud {};
    uint32_t n = 0;
    for (doca_buf_inventory *i : {static_cast<doca_buf_inventory *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_destroy, i);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_start, i);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_stop, i);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_set_user_data, i, ud);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_num_elements, i, &n);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_num_free_elements, i, &n);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_user_data, i, &ud);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_expand, i, 4);
    }

    ASSERT_EQ(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_num_elements, inv, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_num_free_elements, inv,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_user_data, inv, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inventory_stop, inv);      // not started
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inventory_expand, inv, 4); // not started
    ud.u64 = 9;
    EXPECT_EQ(doca_buf_inventory_set_user_data(inv, ud), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inventory_start, inv);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inventory_set_user_data, inv, ud);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_expand, inv, 0);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_expand, inv,
                   UINT32_MAX); // total above UINT32_MAX
    ASSERT_EQ(doca_buf_inventory_expand(inv, 2), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_get_num_elements(inv, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 6u);
    ASSERT_EQ(doca_buf_inventory_stop(inv), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inventory_set_user_data, inv,
                   ud); // "once started"
    ud.u64 = 0;
    EXPECT_EQ(doca_buf_inventory_get_user_data(inv, &ud), DOCA_SUCCESS);
    EXPECT_EQ(ud.u64, 9u);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

TEST_F(InventoryBadInput, GetByArgs)
{
    buf_fixture f(2);
    doca_buf *b = nullptr;
    char *m = memory;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, nullptr, f.mmap, m,
                   64, m, 0, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args,
                   junk<doca_buf_inventory>(), f.mmap, m, 64, m, 0, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, nullptr, m,
                   64, m, 0, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv,
                   junk<doca_mmap>(), m, 64, m, 0, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap, m,
                   64, m, 0, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap,
                   nullptr, 64, nullptr, 0, &b);
    // The buffer outside the map's range, the data window outside the buffer.
    const size_t size = sizeof memory;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap,
                   m + size - 32, 64, m + size - 32, 0, &b);
    char *before =
        reinterpret_cast<char *>(reinterpret_cast<uintptr_t>(m) - 64); // never dereferenced
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap,
                   before, 64, before, 0, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap, m,
                   SIZE_MAX, m, 0, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap, m,
                   64, m + 32, 64, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap,
                   m + 64, 64, m, 8, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args, f.inv, f.mmap, m,
                   64, m + 65, 0, &b);
    EXPECT_EQ(b, nullptr);
    // The static inline shorthands forward the same checks.
    EXPECT_REFUSED_VIA(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args,
                       doca_buf_inventory_buf_get_by_addr, f.inv, f.mmap, m + size, 64, &b);
    EXPECT_REFUSED_VIA(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args,
                       doca_buf_inventory_buf_get_by_data, f.inv, nullptr, m, 64, &b);

    // The pool runs dry.
    doca_buf *b1 = nullptr, *b2 = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(f.inv, f.mmap, m, 64, &b1), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_args(f.inv, f.mmap, m + 64, 64, m + 80, 16, &b2),
              DOCA_SUCCESS);
    EXPECT_REFUSED_VIA(DOCA_ERROR_NO_MEMORY, doca_buf_inventory_buf_get_by_args,
                       doca_buf_inventory_buf_get_by_addr, f.inv, f.mmap, m, 64, &b);
    uint32_t free_n = 9;
    EXPECT_EQ(doca_buf_inventory_get_num_free_elements(f.inv, &free_n), DOCA_SUCCESS);
    EXPECT_EQ(free_n, 0u);
    // Outstanding bufs keep the inventory.
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_buf_inventory_stop, f.inv);
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_buf_inventory_destroy, f.inv);
    EXPECT_EQ(doca_buf_dec_refcount(b1, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(b2, nullptr), DOCA_SUCCESS);
}

TEST_F(InventoryBadInput, GetFromUnstartedInventoryOrMap)
{
    buf_fixture f(2, false);
    doca_buf *b = nullptr;
    EXPECT_REFUSED_VIA(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_get_by_args,
                       doca_buf_inventory_buf_get_by_addr, f.inv, f.mmap, memory, 64, &b);
    ASSERT_EQ(doca_buf_inventory_start(f.inv), DOCA_SUCCESS);
    doca_mmap *idle = nullptr;
    ASSERT_EQ(doca_mmap_create(&idle), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(idle, memory, sizeof memory), DOCA_SUCCESS);
    EXPECT_REFUSED_VIA(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_get_by_args,
                       doca_buf_inventory_buf_get_by_addr, f.inv, idle, memory, 64, &b);
    EXPECT_EQ(doca_mmap_destroy(idle), DOCA_SUCCESS);
}

TEST_F(InventoryBadInput, Dup)
{
    buf_fixture f(3);
    doca_buf *head = f.get(0, 64);
    doca_buf *second = f.get(64, 64);
    ASSERT_EQ(doca_buf_chain_list(head, second), DOCA_SUCCESS);
    doca_buf *copy = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_dup, nullptr, head, &copy);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_dup, f.inv, nullptr, &copy);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_dup, f.inv, junk<doca_buf>(),
                   &copy);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_dup, f.inv, head, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_inventory_buf_dup, f.inv, second,
                   &copy); // not a head
    // One free descriptor, two needed.
    EXPECT_REFUSED(DOCA_ERROR_NO_MEMORY, doca_buf_inventory_buf_dup, f.inv, head, &copy);
    // An unstarted inventory.
    doca_buf_inventory *idle = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(4, &idle), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_dup, idle, head, &copy);
    EXPECT_EQ(copy, nullptr);
    // A released source.
    doca_buf *lone = f.get(128, 64);
    ASSERT_EQ(doca_buf_dec_refcount(lone, nullptr), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(idle), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_dup, idle, lone, &copy);
    // The valid form copies the list into another inventory.
    ASSERT_EQ(doca_buf_inventory_buf_dup(idle, head, &copy), DOCA_SUCCESS);
    uint32_t len = 0;
    EXPECT_EQ(doca_buf_get_list_len(copy, &len), DOCA_SUCCESS);
    EXPECT_EQ(len, 2u);
    EXPECT_EQ(doca_buf_dec_refcount(copy, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(head, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(idle), DOCA_SUCCESS);
}

// =============================================================================================
// doca_buf.h
// =============================================================================================

TEST_F(BufBadInput, NullAndForeignBufs)
{
    doca_buf *bad = junk<doca_buf>();
    uint16_t rc16 = 0;
    size_t sz = 0;
    void *p = nullptr;
    doca_buf *next = nullptr;
    uint8_t u8 = 0;
    uint32_t u32 = 0;
    for (doca_buf *b : {static_cast<doca_buf *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_inc_refcount, b, &rc16);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_dec_refcount, b, &rc16);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_refcount, b, &rc16);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_len, b, &sz);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_head, b, &p);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_data_len, b, &sz);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_data, b, &p);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data, b, memory, 0);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data_len, b, 0);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_reset_data_len, b);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_next_in_list, b, &next);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_last_in_list, b, &next);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_is_last_in_list, b, &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_is_first_in_list, b, &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_is_in_list, b, &u8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_list_len, b, &u32);
    }
    buf_fixture f;
    doca_buf *a = f.get(0, 64);
    doca_buf *c = f.get(64, 64);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_refcount, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_len, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_head, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_data_len, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_data, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_next_in_list, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_last_in_list, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_is_last_in_list, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_is_first_in_list, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_is_in_list, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_get_list_len, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list, nullptr, a);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list, a, bad);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list_tail, nullptr, a, c);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list_tail, a, nullptr, c);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list_tail, a, a, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list, nullptr, c);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list, a, nullptr);
    // Optional out-parameters may be NULL.
    EXPECT_EQ(doca_buf_inc_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(c, nullptr), DOCA_SUCCESS);
}

TEST_F(BufBadInput, DataWindow)
{
    buf_fixture f;
    doca_buf *b = f.get(128, 64);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data, b, memory + 128 + 60,
                   8); // ends past the buffer
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data, b, memory + 64,
                   8); // starts before it
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data, b, memory + 128, 65);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data, b, memory + 128, SIZE_MAX);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data, b, nullptr, 0);
    ASSERT_EQ(doca_buf_set_data(b, memory + 136, 8), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data_len, b, 64 - 8 + 1);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data_len, b, SIZE_MAX);
    ASSERT_EQ(doca_buf_set_data_len(b, 56), DOCA_SUCCESS);
    // Refused calls changed nothing.
    void *data = nullptr;
    size_t len = 0;
    EXPECT_EQ(doca_buf_get_data(b, &data), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_get_data_len(b, &len), DOCA_SUCCESS);
    EXPECT_EQ(data, memory + 136);
    EXPECT_EQ(len, 56u);
    EXPECT_EQ(doca_buf_reset_data_len(b), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_get_data_len(b, &len), DOCA_SUCCESS);
    EXPECT_EQ(len, 0u);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
}

TEST_F(BufBadInput, RefcountLimits)
{
    buf_fixture f;
    doca_buf *b = f.get(0, 64);
    uint16_t before = 0;
    for (uint32_t i = 1; i < UINT16_MAX; ++i)
        ASSERT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_SUCCESS) << i;
    EXPECT_EQ(doca_buf_get_refcount(b, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, UINT16_MAX);
    EXPECT_REFUSED(DOCA_ERROR_TOO_BIG, doca_buf_inc_refcount, b, &before);
    for (uint32_t i = 0; i < UINT16_MAX; ++i)
        ASSERT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS) << i;
    // Released: the count is 0 (the descriptor is back in the inventory, which still owns it).
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_dec_refcount, b, &before);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_inc_refcount, b, &before);
}

TEST_F(BufBadInput, Lists)
{
    buf_fixture f;
    doca_buf *b1 = f.get(0, 64), *b2 = f.get(64, 64), *b3 = f.get(128, 64), *b4 = f.get(192, 64);
    ASSERT_EQ(doca_buf_chain_list(b1, b2), DOCA_SUCCESS);
    // b2 is an element, not a head.
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_inc_refcount, b2, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_dec_refcount, b2, nullptr);
    uint32_t n_elements = 0;
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_get_list_len, b2, &n_elements);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_chain_list, b2, b3);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_chain_list, b3, b2);
    // Both arguments the same list.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list, b1, b1);
    // list2's count must be 1.
    ASSERT_EQ(doca_buf_inc_refcount(b3, nullptr), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_chain_list, b1, b3);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_chain_list_tail, b1, b2, b3);
    ASSERT_EQ(doca_buf_dec_refcount(b3, nullptr), DOCA_SUCCESS);
    // A tail that is not the last element of list1.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list_tail, b1, b1, b3);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list_tail, b1, b4, b3);
    ASSERT_EQ(doca_buf_chain_list_tail(b1, b2, b3), DOCA_SUCCESS); // b1 -> b2 -> b3
    // Unchain: list2 must be an element after the head of list1's list; list1 must be a head.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list, b1, b4);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list, b1, b1);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_buf_unchain_list, b2, b3);
    uint32_t len = 0;
    EXPECT_EQ(doca_buf_get_list_len(b1, &len), DOCA_SUCCESS);
    EXPECT_EQ(len, 3u);
    ASSERT_EQ(doca_buf_unchain_list(b1, b3), DOCA_SUCCESS);
    // A released buf cannot be chained.
    ASSERT_EQ(doca_buf_dec_refcount(b4, nullptr), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_buf_unchain_list, b4, b3);
    EXPECT_EQ(doca_buf_dec_refcount(b3, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(b1, nullptr), DOCA_SUCCESS);
}

// =============================================================================================
// doca_log.h
// =============================================================================================

namespace {
char app_buffer[4096];
std::vector<std::string> app_lines;
void on_app_line(char *line)
{
    app_lines.emplace_back(line);
}

doca_log_backend *app_backend()
{
    static doca_log_backend *b = [] {
        doca_log_backend *be = nullptr;
        EXPECT_EQ(doca_log_backend_create_with_buf(app_buffer, sizeof app_buffer, on_app_line, &be),
                  DOCA_SUCCESS);
        return be;
    }();
    return b;
}
} // namespace

TEST_F(LogBadInput, BackendCreation)
{
    doca_log_backend *b = nullptr;
    char buf[64];
    log_flush_callback h = [](char *) {
    };
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_file, nullptr, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_file, stdout, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_file_sdk, nullptr, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_file_sdk, stderr,
                   nullptr);
    // Descriptors that are not open.
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    close(fds[0]);
    close(fds[1]);
    for (int fd : {-1, fds[0], fds[1], 1 << 20}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_fd, fd, &b);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_fd_sdk, fd, &b);
    }
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_fd, STDERR_FILENO,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_fd_sdk, STDERR_FILENO,
                   nullptr);
    for (auto create : {doca_log_backend_create_with_buf, doca_log_backend_create_with_buf_sdk}) {
        size_t m = sdk_log::mark();
        EXPECT_EQ(create(nullptr, sizeof buf, h, &b), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(create(buf, 0, h, &b), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(create(buf, sizeof buf, nullptr, &b), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(create(buf, sizeof buf, h, nullptr), DOCA_ERROR_INVALID_VALUE);
        EXPECT_TRUE(sdk_log::named_since(m, "doca_log_backend_create_with_buf") ||
                    sdk_log::named_since(m, "doca_log_backend_create_with_buf_sdk"))
            << sdk_log::since(m);
    }
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_syslog, nullptr, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_syslog, "softcomch-test",
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_syslog_sdk, nullptr, &b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_syslog_sdk,
                   "softcomch-test", nullptr);
    EXPECT_EQ(b, nullptr) << "outputs are written only on success";
    // doca_log_backend_create_standard takes no input; a second call has no further effect.
    EXPECT_EQ(doca_log_backend_create_standard(), DOCA_SUCCESS);
    EXPECT_EQ(doca_log_backend_create_standard(), DOCA_SUCCESS);
}

TEST_F(LogBadInput, Limits)
{
    doca_log_backend *app = app_backend();
    ASSERT_NE(app, nullptr);
    doca_log_backend *bad = junk<doca_log_backend>();
    for (doca_log_backend *b : {static_cast<doca_log_backend *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_lower_limit, b,
                       DOCA_LOG_LEVEL_INFO);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_upper_limit, b,
                       DOCA_LOG_LEVEL_CRIT);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_lower_limit_strict, b);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_upper_limit_strict, b);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_sdk_level, b,
                       DOCA_LOG_LEVEL_INFO);
    }
    const uint32_t lower = doca_log_level_get_global_lower_limit();
    const uint32_t upper = doca_log_level_get_global_upper_limit();
    const uint32_t sdk = doca_log_level_get_global_sdk_limit();
    for (uint32_t level : {0u, 9u, 71u, 100u, UINT32_MAX}) {
        SCOPED_TRACE(level);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_lower_limit, app,
                       level);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_upper_limit, app,
                       level);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_sdk_level, sdk_log::backend(),
                       level);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_level_set_global_lower_limit, level);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_level_set_global_upper_limit, level);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_level_set_global_sdk_limit, level);
    }
    EXPECT_EQ(doca_log_level_get_global_lower_limit(), lower) << "refused calls change nothing";
    EXPECT_EQ(doca_log_level_get_global_upper_limit(), upper);
    EXPECT_EQ(doca_log_level_get_global_sdk_limit(), sdk);
    // The SDK level of an application backend (docs/logging_and_argp.md 2).
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_sdk_level, app,
                   DOCA_LOG_LEVEL_INFO);
    // Still capturing at DEBUG after the refusals above.
    size_t m = sdk_log::mark();
    EXPECT_EQ(doca_pe_create(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_TRUE(sdk_log::named_since(m, "doca_pe_create"));
}

TEST_F(LogBadInput, SourcesAndLines)
{
    doca_log_backend *app = app_backend();
    ASSERT_NE(app, nullptr);
    int source = -12345;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_register_source, nullptr, &source);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_register_source, "BAD_INPUT::TEST", nullptr);
    EXPECT_EQ(source, -12345) << "written only on success";
    for (int s : {-1, -12345, 1 << 24, INT_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_unregister_source, s);
    ASSERT_EQ(doca_log_register_source("BAD_INPUT::TEST", &source), DOCA_SUCCESS);

    // doca_log: not a message level, NULL format, an unregistered source (with a backend that
    // takes the line: docs/logging_and_argp.md 3).
    const char *volatile null_format = nullptr;
    for (uint32_t level : {0u, uint32_t(DOCA_LOG_LEVEL_DISABLE), 71u, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log, level, source, __FILE__, __LINE__,
                       __func__, "%s", "x");
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log, DOCA_LOG_LEVEL_ERROR, source, __FILE__,
                   __LINE__, __func__, null_format);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log, DOCA_LOG_LEVEL_ERROR, 1 << 24, __FILE__,
                   __LINE__, __func__, "%s", "x");
    // The valid form reaches the application backend.
    app_lines.clear();
    EXPECT_EQ(
        doca_log(DOCA_LOG_LEVEL_ERROR, source, __FILE__, __LINE__, __func__, "bad input %d", 7),
        DOCA_SUCCESS);
    ASSERT_EQ(app_lines.size(), 1u);
    EXPECT_NE(app_lines[0].find("bad input 7"), std::string::npos) << app_lines[0];
    EXPECT_EQ(doca_log_unregister_source(source), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_log_unregister_source, source); // already gone
}

// =============================================================================================
// doca_argp.h (a process-wide singleton: each test leaves it destroyed)
// =============================================================================================

namespace {
doca_error_t flag_cb(void *, void *)
{
    return DOCA_SUCCESS;
}
doca_error_t cmd_cb(void *)
{
    return DOCA_SUCCESS;
}
doca_error_t validation_cb(void *)
{
    return DOCA_SUCCESS;
}
doca_error_t logger_cb(enum doca_log_level, const char *, va_list)
{
    return DOCA_SUCCESS;
}

class ArgpBadInput : public BadInput {
protected:
    void TearDown() override { doca_argp_destroy(); }

    // A complete param (short name `s`, long name `l`, STRING).
    static doca_argp_param *param(const char *s, const char *l)
    {
        doca_argp_param *p = nullptr;
        EXPECT_EQ(doca_argp_param_create(&p), DOCA_SUCCESS);
        if (s)
            doca_argp_param_set_short_name(p, s);
        if (l)
            doca_argp_param_set_long_name(p, l);
        doca_argp_param_set_description(p, "a flag");
        doca_argp_param_set_callback(p, flag_cb);
        doca_argp_param_set_type(p, DOCA_ARGP_TYPE_STRING);
        return p;
    }
    static doca_error_t start(std::vector<std::string> args)
    {
        args.insert(args.begin(), "bad_input");
        std::vector<char *> argv;
        for (auto &a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        return doca_argp_start(int(args.size()), argv.data());
    }
};
} // namespace

TEST_F(ArgpBadInput, NotInitialised)
{
    char arg0[] = "bad_input";
    char *argv[] = {arg0, nullptr};
    doca_argp_param *p = nullptr;
    doca_argp_cmd *c = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_start, 1, argv);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_destroy);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_param_create, &p);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_cmd_create, &c);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_register_version_callback, flag_cb);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_register_validation_callback, validation_cb);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_register_logger_callback, logger_cb);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_disable_logger_callback);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(c, nullptr);
    // Independent of initialisation.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_get_log_level, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_get_sdk_log_level, nullptr);
    int level = 0;
    EXPECT_EQ(doca_argp_get_log_level(&level), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_get_sdk_log_level(&level), DOCA_SUCCESS);
}

TEST_F(ArgpBadInput, Registration)
{
    int config = 0;
    ASSERT_EQ(doca_argp_init("bad_input", &config), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_init, "again", &config);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_param_create, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_param, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_param, junk<doca_argp_param>());
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_param_destroy, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_param_destroy, junk<doca_argp_param>());
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_version_callback, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_validation_callback, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_logger_callback, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_disable_logger_callback); // none registered

    // A param missing each required part: INITIALIZATION, and argp owns it anyway.
    for (int missing = 0; missing < 4; ++missing) {
        SCOPED_TRACE(missing);
        doca_argp_param *p = nullptr;
        ASSERT_EQ(doca_argp_param_create(&p), DOCA_SUCCESS);
        if (missing != 0)
            doca_argp_param_set_long_name(p, ("incomplete-" + std::to_string(missing)).c_str());
        if (missing != 1)
            doca_argp_param_set_description(p, "incomplete");
        if (missing != 2)
            doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
        if (missing != 3)
            doca_argp_param_set_callback(p, flag_cb);
        EXPECT_REFUSED(DOCA_ERROR_INITIALIZATION, doca_argp_register_param, p);
    }
    // Registered twice; a name already in use; destroying a registered param.
    doca_argp_param *p = param("a", "alpha");
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_register_param, p);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_param_destroy, p);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_param, param("b", "alpha"));
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_param, param("a", "beta"));
    // Setters of a registered param, or of no param, log and ignore.
    EXPECT_LOGGED(doca_argp_param_set_long_name, doca_argp_param_set_long_name(p, "renamed"));
    for (doca_argp_param *q : {static_cast<doca_argp_param *>(nullptr), junk<doca_argp_param>()}) {
        EXPECT_LOGGED(doca_argp_param_set_short_name, doca_argp_param_set_short_name(q, "x"));
        EXPECT_LOGGED(doca_argp_param_set_long_name, doca_argp_param_set_long_name(q, "x"));
        EXPECT_LOGGED(doca_argp_param_set_arguments, doca_argp_param_set_arguments(q, "<x>"));
        EXPECT_LOGGED(doca_argp_param_set_description, doca_argp_param_set_description(q, "x"));
        EXPECT_LOGGED(doca_argp_param_set_callback, doca_argp_param_set_callback(q, flag_cb));
        EXPECT_LOGGED(doca_argp_param_set_type, doca_argp_param_set_type(q, DOCA_ARGP_TYPE_INT));
        EXPECT_LOGGED(doca_argp_param_set_mandatory, doca_argp_param_set_mandatory(q));
        EXPECT_LOGGED(doca_argp_param_set_cli_only, doca_argp_param_set_cli_only(q));
        EXPECT_LOGGED(doca_argp_param_set_multiplicity, doca_argp_param_set_multiplicity(q));
        EXPECT_LOGGED(doca_argp_param_set_singular, doca_argp_param_set_singular(q));
        EXPECT_LOGGED(doca_argp_param_set_inherited, doca_argp_param_set_inherited(q));
        EXPECT_LOGGED(doca_argp_param_set_hidden, doca_argp_param_set_hidden(q));
    }
    EXPECT_LOGGED(doca_argp_set_dpdk_program, doca_argp_set_dpdk_program(nullptr));
    // Logger callback: once.
    ASSERT_EQ(doca_argp_register_logger_callback(logger_cb), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_register_logger_callback(logger_cb), DOCA_ERROR_ALREADY_EXIST);
    EXPECT_EQ(doca_argp_disable_logger_callback(), DOCA_SUCCESS);
    // The usage text of a valid parser (prints to stdout).
    doca_argp_usage();
    // The rename above was ignored: --alpha still parses, --renamed does not exist.
    EXPECT_EQ(start({"--alpha", "v"}), DOCA_SUCCESS);
}

TEST_F(ArgpBadInput, Commands)
{
    ASSERT_EQ(doca_argp_init("bad_input", nullptr), DOCA_SUCCESS);
    doca_argp_cmd *c = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_create, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_cmd, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_cmd, junk<doca_argp_cmd>());
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_destroy, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_destroy, junk<doca_argp_cmd>());
    for (doca_argp_cmd *q : {static_cast<doca_argp_cmd *>(nullptr), junk<doca_argp_cmd>()}) {
        EXPECT_LOGGED(doca_argp_cmd_set_name, doca_argp_cmd_set_name(q, "x"));
        EXPECT_LOGGED(doca_argp_cmd_set_description, doca_argp_cmd_set_description(q, "x"));
        EXPECT_LOGGED(doca_argp_cmd_set_callback, doca_argp_cmd_set_callback(q, cmd_cb));
        EXPECT_LOGGED(doca_argp_cmd_set_hidden, doca_argp_cmd_set_hidden(q));
    }
    // A command without a name, then without a description.
    ASSERT_EQ(doca_argp_cmd_create(&c), DOCA_SUCCESS);
    doca_argp_cmd_set_description(c, "no name");
    EXPECT_REFUSED(DOCA_ERROR_INITIALIZATION, doca_argp_register_cmd, c);
    ASSERT_EQ(doca_argp_cmd_create(&c), DOCA_SUCCESS);
    doca_argp_cmd_set_name(c, "nodescr");
    EXPECT_REFUSED(DOCA_ERROR_INITIALIZATION, doca_argp_register_cmd, c);

    doca_argp_cmd *send = nullptr, *sub = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&send), DOCA_SUCCESS);
    doca_argp_cmd_set_name(send, "send");
    doca_argp_cmd_set_description(send, "send something");
    doca_argp_cmd_set_callback(send, cmd_cb);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_register_param, nullptr,
                   param("p", "peer"));
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_register_param, send, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_register_cmd, nullptr, send);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_register_cmd, send, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_cmd_register_cmd, send, send);
    ASSERT_EQ(doca_argp_cmd_create(&sub), DOCA_SUCCESS);
    doca_argp_cmd_set_name(sub, "fast");
    doca_argp_cmd_set_description(sub, "fast mode");
    ASSERT_EQ(doca_argp_cmd_register_cmd(send, sub), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_cmd_register_cmd, send,
                   sub); // already registered
    ASSERT_EQ(doca_argp_register_cmd(send), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_register_cmd, send);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_argp_cmd_destroy, send);
    // A second top-level command with the same name.
    doca_argp_cmd *dup = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&dup), DOCA_SUCCESS);
    doca_argp_cmd_set_name(dup, "send");
    doca_argp_cmd_set_description(dup, "duplicate");
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_argp_register_cmd, dup);
}

TEST_F(ArgpBadInput, StartRefusesBadCommandLines)
{
    // A fresh parser per command line: -s/--single (STRING), -m/--must (STRING, mandatory),
    // --count (INT). The parser's messages are about the command line, for its user: they name
    // the offending argument (not doca_argp_start) in an SDK error line.
    auto parse = [this](std::vector<std::string> args, const char *named) {
        EXPECT_EQ(doca_argp_init("bad_input", nullptr), DOCA_SUCCESS);
        EXPECT_EQ(doca_argp_register_param(param("s", "single")), DOCA_SUCCESS);
        doca_argp_param *m = param("m", "must");
        doca_argp_param_set_mandatory(m);
        EXPECT_EQ(doca_argp_register_param(m), DOCA_SUCCESS);
        doca_argp_param *i = nullptr;
        EXPECT_EQ(doca_argp_param_create(&i), DOCA_SUCCESS);
        doca_argp_param_set_long_name(i, "count");
        doca_argp_param_set_description(i, "a number");
        doca_argp_param_set_callback(i, flag_cb);
        doca_argp_param_set_type(i, DOCA_ARGP_TYPE_INT);
        EXPECT_EQ(doca_argp_register_param(i), DOCA_SUCCESS);
        const size_t mk = sdk_log::mark();
        doca_error_t rc = start(args);
        if (rc != DOCA_SUCCESS) {
            bool found = false;
            {
                std::lock_guard<std::mutex> g(sdk_log::mu);
                for (size_t k = mk; k < sdk_log::lines.size(); ++k)
                    found = found || (sdk_log::lines[k].find("[ERR]") != std::string::npos &&
                                      sdk_log::lines[k].find(named) != std::string::npos);
            }
            EXPECT_TRUE(found) << "no SDK error line names " << named << sdk_log::since(mk);
        } else {
            EXPECT_EQ(start(args), DOCA_ERROR_BAD_STATE) << "already started";
        }
        EXPECT_EQ(doca_argp_destroy(), DOCA_SUCCESS);
        return rc;
    };
    EXPECT_EQ(parse({"--must", "x", "--unknown"}, "--unknown"), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(parse({"--must", "x", "extra"}, "extra"),
              DOCA_ERROR_NOT_SUPPORTED);                                     // unknown command
    EXPECT_EQ(parse({"--must"}, "--must"), DOCA_ERROR_INVALID_VALUE);        // missing value
    EXPECT_EQ(parse({"--single", "a"}, "--must"), DOCA_ERROR_INVALID_VALUE); // mandatory missing
    EXPECT_EQ(parse({"--must", "x", "-s", "a", "-s", "b"}, "--single"),
              DOCA_ERROR_INVALID_VALUE); // single-use twice
    EXPECT_EQ(parse({"--must", "x", "--count", "abc"}, "abc"),
              DOCA_ERROR_INVALID_VALUE); // not an int
    EXPECT_EQ(parse({"--must", "x", "-l", "71"}, "71"),
              DOCA_ERROR_INVALID_VALUE); // level out of range
    EXPECT_EQ(
        parse({"--must", "x", "-j", "/nonexistent/softcomch.json"}, "/nonexistent/softcomch.json"),
        DOCA_ERROR_IO_FAILED);
    EXPECT_EQ(parse({"--must", "x", "--count", "3"}, ""), DOCA_SUCCESS);
}

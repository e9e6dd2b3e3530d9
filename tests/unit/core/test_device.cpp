// SPDX-License-Identifier: Apache-2.0
//
// doca_dev.h through its C API: enumeration, SOFTCOMCH_SIDE, getters, open/close reference
// counting, representors (host vs DPU side, filters, privilege policy) and every documented
// error code. The C thunks are compiled into this test (unit tests link sc_common + sc_core only).
#define DOCA_ALLOW_EXPERIMENTAL_API 1

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "capi/common/dev.cpp" // NOLINT: the thunks under test
#include "common/log_backend.hpp"
#include "core/topology.hpp"

using namespace softcomch::core;

namespace {

// ---- SDK log capture ----
std::string g_log;
char g_log_buf[4096];
void on_log_line(char *line)
{
    g_log += line;
}

void capture_sdk_log()
{
    static doca_log_backend *backend = nullptr;
    if (!backend) {
        ASSERT_EQ(softcomch::log::create_buf_backend(softcomch::log::family::sdk, g_log_buf,
                                                     sizeof g_log_buf, on_log_line, &backend),
                  DOCA_SUCCESS);
    }
    g_log.clear();
}

// ---- environment: every test starts from a fresh machine and restores the variables ----
class DeviceTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        save("SOFTCOMCH_TOPOLOGY", topo_);
        save("SOFTCOMCH_SIDE", side_);
        ::unsetenv("SOFTCOMCH_TOPOLOGY");
        ::unsetenv("SOFTCOMCH_SIDE");
        reset_machine_for_testing();
        capture_sdk_log();
    }
    void TearDown() override
    {
        set_credentials_override(nullptr);
        restore("SOFTCOMCH_TOPOLOGY", topo_);
        restore("SOFTCOMCH_SIDE", side_);
        reset_machine_for_testing();
        for (const std::string &p : temp_files_)
            std::remove(p.c_str());
    }

    std::string use_topology(const std::string &text)
    {
        char path[] = "/tmp/softcomch-dev-XXXXXX";
        int fd = ::mkstemp(path);
        EXPECT_GE(fd, 0);
        EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
        ::close(fd);
        temp_files_.push_back(path);
        ::setenv("SOFTCOMCH_TOPOLOGY", path, 1);
        reset_machine_for_testing();
        return path;
    }

    // The visible device with this PCI address (first match), from a fresh list.
    static doca_devinfo *find(const char *pci)
    {
        doca_devinfo **list = nullptr;
        uint32_t n = 0;
        if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
            return nullptr;
        doca_devinfo *found = nullptr;
        for (uint32_t i = 0; i < n && !found; ++i) {
            uint8_t eq = 0;
            EXPECT_EQ(doca_devinfo_is_equal_pci_addr(list[i], pci, &eq), DOCA_SUCCESS);
            if (eq)
                found = list[i];
        }
        EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
        return found;
    }

    static doca_dev *open(const char *pci)
    {
        doca_devinfo *info = find(pci);
        doca_dev *dev = nullptr;
        if (info) {
            EXPECT_EQ(doca_dev_open(info, &dev), DOCA_SUCCESS);
        }
        return dev;
    }

private:
    static void save(const char *name, std::optional<std::string> &slot)
    {
        if (const char *v = std::getenv(name))
            slot = v;
    }
    static void restore(const char *name, const std::optional<std::string> &slot)
    {
        if (slot)
            ::setenv(name, slot->c_str(), 1);
        else
            ::unsetenv(name);
    }
    std::optional<std::string> topo_, side_;
    std::vector<std::string> temp_files_;
};

std::string pci_of(const doca_devinfo *d)
{
    char buf[DOCA_DEVINFO_PCI_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_get_pci_addr_str(d, buf), DOCA_SUCCESS);
    return buf;
}

std::string rep_name(const doca_devinfo_rep *r)
{
    char buf[DOCA_DEVINFO_IFACE_NAME_SIZE];
    EXPECT_EQ(doca_devinfo_rep_get_iface_name(r, buf, sizeof buf), DOCA_SUCCESS);
    return buf;
}

const char *policy_topology(const char *privilege)
{
    static std::string text;
    text = std::string(R"({"privilege": )") + privilege + R"(, "bluefields": [{"id": "bf0",
        "host": [{"pci": "b1:00.0"}, {"pci": "b1:00.1"}],
        "dpu": [{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"}]},
                {"pci": "03:00.1", "representors": [{"host_function": "b1:00.1"}]}]}]})";
    return text.c_str();
}

} // namespace

// ------------------------------------------------------------------------------------------------
// enumeration
// ------------------------------------------------------------------------------------------------

TEST_F(DeviceTest, ListDefaultMachine)
{
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    ASSERT_EQ(n, 5u);
    EXPECT_EQ(list[n], nullptr);
    EXPECT_EQ(pci_of(list[0]), "0000:b1:00.0");
    EXPECT_EQ(pci_of(list[1]), "0000:b1:00.1");
    EXPECT_EQ(pci_of(list[2]), "0000:b1:00.2");
    EXPECT_EQ(pci_of(list[3]), "0000:03:00.0");
    EXPECT_EQ(pci_of(list[4]), "0000:03:00.1");

    // A second list is a new array over the same devinfo objects.
    doca_devinfo **list2 = nullptr;
    uint32_t n2 = 0;
    ASSERT_EQ(doca_devinfo_create_list(&list2, &n2), DOCA_SUCCESS);
    EXPECT_NE(list2, list);
    EXPECT_EQ(list2[0], list[0]);
    EXPECT_EQ(doca_devinfo_destroy_list(list2), DOCA_SUCCESS);

    EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_ERROR_INVALID_VALUE); // not live any more
    doca_devinfo *not_a_list[2] = {};
    EXPECT_EQ(doca_devinfo_destroy_list(not_a_list), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_destroy_list(nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceTest, ListArgumentErrors)
{
    doca_devinfo **list = reinterpret_cast<doca_devinfo **>(0x1);
    uint32_t n = 77;
    EXPECT_EQ(doca_devinfo_create_list(nullptr, &n), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_create_list(&list, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(n, 77u);
    EXPECT_EQ(list, reinterpret_cast<doca_devinfo **>(0x1));
    EXPECT_NE(g_log.find("doca_devinfo_create_list: dev_list is NULL"), std::string::npos) << g_log;
}

TEST_F(DeviceTest, SideFilter)
{
    ::setenv("SOFTCOMCH_SIDE", "host", 1);
    reset_machine_for_testing();
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
    EXPECT_EQ(find("03:00.0"), nullptr); // the host never sees the DPU's functions

    ::setenv("SOFTCOMCH_SIDE", "dpu", 1);
    reset_machine_for_testing();
    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(pci_of(list[0]), "0000:03:00.0");
    EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
    EXPECT_EQ(find("b1:00.0"), nullptr);
}

TEST_F(DeviceTest, InvalidConfigurationIsInitializationError)
{
    ::setenv("SOFTCOMCH_SIDE", "both", 1);
    reset_machine_for_testing();
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    EXPECT_EQ(doca_devinfo_create_list(&list, &n), DOCA_ERROR_INITIALIZATION);
    EXPECT_EQ(list, nullptr);
    EXPECT_NE(g_log.find("SOFTCOMCH_SIDE=\"both\" is invalid"), std::string::npos) << g_log;

    ::unsetenv("SOFTCOMCH_SIDE");
    std::string path = use_topology("{\"bluefields\": [}");
    g_log.clear();
    EXPECT_EQ(doca_devinfo_create_list(&list, &n), DOCA_ERROR_INITIALIZATION);
    EXPECT_NE(g_log.find(path + ":1:17: unexpected '}'"), std::string::npos) << g_log;

    ::setenv("SOFTCOMCH_TOPOLOGY", "/nonexistent/topo.json", 1);
    reset_machine_for_testing();
    EXPECT_EQ(doca_devinfo_create_list(&list, &n), DOCA_ERROR_INITIALIZATION);
}

// ------------------------------------------------------------------------------------------------
// getters
// ------------------------------------------------------------------------------------------------

TEST_F(DeviceTest, PciAddressMatching)
{
    doca_devinfo *d = find("b1:00.0");
    ASSERT_NE(d, nullptr);
    uint8_t eq = 9;
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(d, "0000:b1:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 1);
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(d, "B1:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 1);
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(d, "b1:00.1", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 0);
    eq = 9;
    for (const char *bad : {"", "b1:00", "xyz", "b1:00.0 ", "0000:b1:00.0:0", "b1:00.8"})
        EXPECT_EQ(doca_devinfo_is_equal_pci_addr(d, bad, &eq), DOCA_ERROR_INVALID_VALUE) << bad;
    EXPECT_EQ(eq, 9);
    // Malformed input is the answer NVIDIA's name-or-address lookups expect: not an error line
    // (debug level only).
    EXPECT_EQ(g_log.find("doca_devinfo_is_equal_pci_addr: malformed PCI address"),
              std::string::npos)
        << g_log;
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(d, nullptr, &eq), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(d, "b1:00.0", nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(nullptr, "b1:00.0", &eq), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_pci_addr_str(d, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_pci_addr_str(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceTest, NameGettersCheckBufferSize)
{
    doca_devinfo *d = find("b1:00.0");
    ASSERT_NE(d, nullptr);
    char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE];
    EXPECT_EQ(doca_devinfo_get_ibdev_name(d, ib, sizeof ib), DOCA_SUCCESS);
    EXPECT_STREQ(ib, "mlx5_0");
    strcpy(ib, "untouched");
    EXPECT_EQ(doca_devinfo_get_ibdev_name(d, ib, DOCA_DEVINFO_IBDEV_NAME_SIZE - 1),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_STREQ(ib, "untouched");
    EXPECT_NE(g_log.find("too small for the ibdev name"), std::string::npos) << g_log;
    EXPECT_EQ(doca_devinfo_get_ibdev_name(d, nullptr, sizeof ib), DOCA_ERROR_INVALID_VALUE);

    char ifn[DOCA_DEVINFO_IFACE_NAME_SIZE];
    EXPECT_EQ(doca_devinfo_get_iface_name(d, ifn, sizeof ifn), DOCA_SUCCESS);
    EXPECT_STREQ(ifn, "ens1f0np0");
    EXPECT_EQ(doca_devinfo_get_iface_name(d, ifn, 16), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_iface_name(nullptr, ifn, sizeof ifn), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceTest, AddressAndNumericGetters)
{
    doca_devinfo *d = find("03:00.1");
    ASSERT_NE(d, nullptr);
    uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_get_mac_addr(d, mac, sizeof mac), DOCA_SUCCESS);
    EXPECT_EQ(mac[0], 0x02);
    EXPECT_EQ(mac[1], 0x5c);
    EXPECT_EQ(mac[3], 0x01);
    EXPECT_EQ(doca_devinfo_get_mac_addr(d, mac, 5), DOCA_ERROR_INVALID_VALUE);
    uint8_t v4[DOCA_DEVINFO_IPV4_ADDR_SIZE] = {1, 1, 1, 1};
    EXPECT_EQ(doca_devinfo_get_ipv4_addr(d, v4, sizeof v4), DOCA_SUCCESS);
    EXPECT_EQ(v4[0] | v4[1] | v4[2] | v4[3], 0);
    EXPECT_EQ(doca_devinfo_get_ipv4_addr(d, v4, 3), DOCA_ERROR_INVALID_VALUE);
    uint8_t v6[DOCA_DEVINFO_IPV6_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_get_ipv6_addr(d, v6, sizeof v6), DOCA_SUCCESS);
    EXPECT_EQ(v6[0], 0xfe);
    EXPECT_EQ(v6[15], mac[5]);
    EXPECT_EQ(doca_devinfo_get_ipv6_addr(d, v6, 15), DOCA_ERROR_INVALID_VALUE);

    uint16_t lid = 99;
    EXPECT_EQ(doca_devinfo_get_lid(d, &lid), DOCA_SUCCESS);
    EXPECT_EQ(lid, 0);
    uint64_t rate = 0;
    EXPECT_EQ(doca_devinfo_get_active_rate(d, &rate), DOCA_SUCCESS);
    EXPECT_EQ(rate, 200'000'000'000ull);
    uint16_t vhca = 0;
    EXPECT_EQ(doca_devinfo_get_vhca_id(d, &vhca), DOCA_SUCCESS);
    EXPECT_EQ(vhca, 4); // three host functions, then 03:00.0, then 03:00.1
    doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_SF;
    EXPECT_EQ(doca_devinfo_get_pci_func_type(d, &type), DOCA_SUCCESS);
    EXPECT_EQ(type, DOCA_PCI_FUNC_TYPE_PF);
    EXPECT_EQ(doca_devinfo_get_pci_func_type(find("b1:00.2"), &type), DOCA_SUCCESS);
    EXPECT_EQ(type, DOCA_PCI_FUNC_TYPE_VF);
    uint32_t sf = 1234;
    EXPECT_EQ(doca_devinfo_get_sf_index(d, &sf), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(sf, 1234u);

    EXPECT_EQ(doca_devinfo_get_lid(d, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_active_rate(nullptr, &rate), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_vhca_id(d, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_pci_func_type(d, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_sf_index(d, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_mac_addr(nullptr, mac, sizeof mac), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceTest, CapabilityBooleans)
{
    doca_devinfo *host = find("b1:00.0");
    doca_devinfo *dpu = find("03:00.0");
    ASSERT_TRUE(host && dpu);
    uint8_t v = 9;
    EXPECT_EQ(doca_devinfo_cap_is_hotplug_manager_supported(dpu, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 0);
    EXPECT_EQ(doca_devinfo_cap_is_notification_moderation_supported(host, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1);
    EXPECT_EQ(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(host, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1);
    for (auto *fn : {doca_devinfo_rep_cap_is_filter_all_supported,
                     doca_devinfo_rep_cap_is_filter_net_supported,
                     doca_devinfo_rep_cap_is_filter_emulated_supported}) {
        EXPECT_EQ(fn(dpu, &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 1);
        EXPECT_EQ(fn(host, &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 0);
        EXPECT_EQ(fn(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
        EXPECT_EQ(fn(host, nullptr), DOCA_ERROR_INVALID_VALUE);
    }
    EXPECT_EQ(doca_devinfo_cap_is_hotplug_manager_supported(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_cap_is_notification_moderation_supported(host, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(nullptr, &v),
              DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceTest, WrongObjectKindIsRefused)
{
    // A representor passed where a devinfo is expected (and the other way round).
    doca_dev *dev = open("03:00.0");
    ASSERT_NE(dev, nullptr);
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    auto *fake_info = reinterpret_cast<doca_devinfo *>(reps[0]);
    auto *fake_rep = reinterpret_cast<doca_devinfo_rep *>(doca_dev_as_devinfo(dev));
    char buf[DOCA_DEVINFO_PCI_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_get_pci_addr_str(fake_info, buf), DOCA_ERROR_INVALID_VALUE);
    EXPECT_NE(g_log.find("is not a valid doca_devinfo"), std::string::npos) << g_log;
    doca_dev *d2 = nullptr;
    EXPECT_EQ(doca_dev_open(fake_info, &d2), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_pci_addr_str(fake_rep, buf), DOCA_ERROR_INVALID_VALUE);
    doca_dev_rep *r = nullptr;
    EXPECT_EQ(doca_dev_rep_open(fake_rep, &r), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(d2, nullptr);
    EXPECT_EQ(r, nullptr);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

// ------------------------------------------------------------------------------------------------
// open / close
// ------------------------------------------------------------------------------------------------

TEST_F(DeviceTest, OpenIsReferenceCounted)
{
    doca_devinfo *info = find("b1:00.0");
    ASSERT_NE(info, nullptr);
    doca_dev *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_dev_open(info, &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_dev_open(info, &b), DOCA_SUCCESS);
    EXPECT_EQ(a, b);
    EXPECT_TRUE(a->tag_.is(softcomch::object_kind::dev));
    EXPECT_EQ(a->open_count(), 2u);
    EXPECT_EQ(a->info(), info);
    EXPECT_EQ(doca_dev_as_devinfo(a), info);
    EXPECT_EQ(doca_dev_accelerate_resource_reclaim(a), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(a), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_as_devinfo(a), info); // still open once
    EXPECT_EQ(doca_dev_close(a), DOCA_SUCCESS);
    // Now closed: every use is refused.
    EXPECT_EQ(doca_dev_close(a), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_as_devinfo(a), nullptr);
    EXPECT_EQ(doca_dev_accelerate_resource_reclaim(a), DOCA_ERROR_INVALID_VALUE);
    EXPECT_NE(g_log.find("doca_dev_close: "), std::string::npos);

    // A device stays valid after its list is destroyed (the samples rely on it).
    doca_dev *c = open("03:00.0");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(pci_of(doca_dev_as_devinfo(c)), "0000:03:00.0");
    EXPECT_EQ(doca_dev_close(c), DOCA_SUCCESS);
}

TEST_F(DeviceTest, OpenArgumentErrors)
{
    doca_devinfo *info = find("b1:00.0");
    doca_dev *dev = nullptr;
    EXPECT_EQ(doca_dev_open(nullptr, &dev), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_open(info, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_close(nullptr), DOCA_SUCCESS); // nothing to close (refusal_audit.md)
    EXPECT_EQ(doca_dev_as_devinfo(nullptr), nullptr);
    EXPECT_EQ(doca_dev_accelerate_resource_reclaim(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(dev, nullptr);
}

TEST_F(DeviceTest, LastCloseOfAHeldDeviceClosesTheHandleAndDefersTheFree)
{
    doca_dev *dev = open("b1:00.0");
    ASSERT_NE(dev, nullptr);
    doca_devinfo *info = dev->info();
    dev->hold(); // e.g. an mmap or a Comch client
    doca_dev *again = open("b1:00.0");
    EXPECT_EQ(again, dev);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS); // not the last reference
    EXPECT_EQ(doca_dev_as_devinfo(dev), info);
    // The last close succeeds although the device is held (NVIDIA's applications close devices
    // before the representors and memory maps that use them): the handle is closed, the object
    // stays for its holder.
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    EXPECT_FALSE(softcomch::core::is_open_device(dev));
    EXPECT_EQ(doca_dev_as_devinfo(dev), nullptr);
    EXPECT_EQ(doca_dev_close(dev), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(dev->info(), info) << "the holder may still read its device";
    // A new open is a new handle; the old object goes with its last holder (ASan checks both).
    doca_dev *fresh = open("b1:00.0");
    ASSERT_NE(fresh, nullptr);
    EXPECT_NE(fresh, dev);
    dev->release();
    EXPECT_EQ(doca_dev_close(fresh), DOCA_SUCCESS);
}

// ------------------------------------------------------------------------------------------------
// representors
// ------------------------------------------------------------------------------------------------

TEST_F(DeviceTest, RepresentorsOnHostAreNotSupported)
{
    doca_dev *dev = open("b1:00.0");
    ASSERT_NE(dev, nullptr);
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 55;
    g_log.clear();
    EXPECT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(reps, nullptr);
    EXPECT_EQ(n, 55u);
    EXPECT_NE(g_log.find("representors exist only on the DPU side"), std::string::npos) << g_log;
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

TEST_F(DeviceTest, RepresentorsOnDpuWithFilters)
{
    doca_dev *dev = open("03:00.0");
    ASSERT_NE(dev, nullptr);
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    ASSERT_EQ(n, 2u);
    EXPECT_EQ(rep_name(reps[0]), "pf0hpf");
    EXPECT_EQ(rep_name(reps[1]), "pf0vf0");
    uint8_t eq = 0;
    EXPECT_EQ(doca_devinfo_rep_is_equal_pci_addr(reps[0], "b1:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 1);
    EXPECT_EQ(doca_devinfo_rep_is_equal_pci_addr(reps[1], "0000:b1:00.2", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 1);
    EXPECT_EQ(doca_devinfo_rep_is_equal_pci_addr(reps[1], "03:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 0);
    EXPECT_EQ(doca_devinfo_rep_is_equal_pci_addr(reps[1], "b1:00", &eq), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_ERROR_INVALID_VALUE);

    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n),
              DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_EMULATED, &reps, &n),
              DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(reps[0], nullptr);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    ASSERT_EQ(doca_devinfo_rep_create_list(
                  dev, DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED, &reps, &n),
              DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);

    reps = nullptr;
    for (int bad : {1, 8, 0x10, -1}) {
        EXPECT_EQ(doca_devinfo_rep_create_list(dev, bad, &reps, &n), DOCA_ERROR_INVALID_VALUE)
            << bad;
    }
    EXPECT_EQ(reps, nullptr);
    EXPECT_NE(g_log.find("invalid filter 0x1"), std::string::npos) << g_log;
    EXPECT_EQ(doca_devinfo_rep_create_list(nullptr, 0, &reps, &n), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_create_list(dev, 0, nullptr, &n), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_create_list(dev, 0, &reps, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(nullptr), DOCA_ERROR_INVALID_VALUE);

    doca_dev *p1 = open("03:00.1");
    ASSERT_EQ(doca_devinfo_rep_create_list(p1, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(rep_name(reps[0]), "pf1hpf");
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(p1), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

TEST_F(DeviceTest, RepresentorGetters)
{
    doca_dev *dev = open("03:00.0");
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    doca_devinfo_rep *vf = reps[1];
    char vuid[DOCA_DEVINFO_REP_VUID_SIZE];
    EXPECT_EQ(doca_devinfo_rep_get_vuid(vf, vuid, sizeof vuid), DOCA_SUCCESS);
    EXPECT_STREQ(vuid, "MT2334SC0000Hpf0vf0");
    EXPECT_EQ(doca_devinfo_rep_get_vuid(vf, vuid, sizeof vuid - 1), DOCA_ERROR_INVALID_VALUE);
    char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_rep_get_pci_addr_str(vf, pci), DOCA_SUCCESS);
    EXPECT_STREQ(pci, "0000:b1:00.2");
    doca_pci_func_type t = DOCA_PCI_FUNC_TYPE_PF;
    EXPECT_EQ(doca_devinfo_rep_get_pci_func_type(vf, &t), DOCA_SUCCESS);
    EXPECT_EQ(t, DOCA_PCI_FUNC_TYPE_VF);
    uint8_t hp = 9;
    EXPECT_EQ(doca_devinfo_rep_get_is_hotplug(vf, &hp), DOCA_SUCCESS);
    EXPECT_EQ(hp, 0);
    uint16_t vhca = 0, host_vhca = 1;
    EXPECT_EQ(doca_devinfo_rep_get_vhca_id(vf, &vhca), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_get_vhca_id(find("b1:00.2"), &host_vhca), DOCA_SUCCESS);
    EXPECT_EQ(vhca, host_vhca);
    char ifn[DOCA_DEVINFO_IFACE_NAME_SIZE];
    EXPECT_EQ(doca_devinfo_rep_get_iface_name(vf, ifn, 10), DOCA_ERROR_INVALID_VALUE);
    // DOCA 3.1's index getters: host controller 1, PF 0, VF 0; not an SF.
    uint32_t idx = 99;
    EXPECT_EQ(doca_devinfo_rep_get_host_index(vf, &idx), DOCA_SUCCESS);
    EXPECT_EQ(idx, 1u);
    EXPECT_EQ(doca_devinfo_rep_get_pf_index(vf, &idx), DOCA_SUCCESS);
    EXPECT_EQ(idx, 0u);
    idx = 99;
    EXPECT_EQ(doca_devinfo_rep_get_vf_index(vf, &idx), DOCA_SUCCESS);
    EXPECT_EQ(idx, 0u);
    idx = 99;
    EXPECT_EQ(doca_devinfo_rep_get_sf_index(vf, &idx), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(idx, 99u);
    EXPECT_EQ(doca_devinfo_rep_get_vf_index(reps[0], &idx), DOCA_ERROR_NOT_SUPPORTED); // the PF
    EXPECT_EQ(doca_devinfo_rep_get_host_index(nullptr, &idx), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_pf_index(vf, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_vf_index(nullptr, &idx), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_sf_index(vf, nullptr), DOCA_ERROR_INVALID_VALUE);

    EXPECT_EQ(doca_devinfo_rep_get_vuid(nullptr, vuid, sizeof vuid), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_vuid(vf, nullptr, sizeof vuid), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_pci_addr_str(vf, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_pci_func_type(vf, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_is_hotplug(nullptr, &hp), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_get_vhca_id(vf, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_is_equal_pci_addr(vf, nullptr, &hp), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

TEST_F(DeviceTest, RepresentorOpenClose)
{
    doca_dev *dev = open("03:00.0");
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    doca_dev_rep *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_dev_rep_open(reps[0], &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_dev_rep_open(reps[0], &b), DOCA_SUCCESS);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a->open_count(), 2u);
    EXPECT_EQ(a->parent(), dev);
    EXPECT_EQ(a->info()->name(), "pf0hpf");
    EXPECT_EQ(doca_dev_rep_as_devinfo(a), reps[0]);
    // The samples destroy the list right after opening: the representor stays valid.
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(rep_name(doca_dev_rep_as_devinfo(a)), "pf0hpf");

    // A Comch server keeps the representor in use.
    a->hold();
    EXPECT_EQ(doca_dev_rep_close(a), DOCA_SUCCESS); // 2 -> 1
    EXPECT_EQ(doca_dev_rep_close(a), DOCA_ERROR_IN_USE);
    a->release();
    EXPECT_EQ(doca_dev_rep_close(a), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_rep_close(a), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_rep_as_devinfo(a), nullptr);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);

    // NVIDIA's order in time_sync, app_shield_agent, yara_inspection and ipsec_security_gw: the
    // device closed before its representor. Both succeed; the device goes with the representor.
    dev = open("03:00.0");
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dev_rep_open(reps[0], &a), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    EXPECT_EQ(rep_name(doca_dev_rep_as_devinfo(a)), "pf0hpf") << "the representor still works";
    EXPECT_EQ(doca_dev_rep_close(a), DOCA_SUCCESS);

    EXPECT_EQ(doca_dev_rep_close(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_rep_as_devinfo(nullptr), nullptr);
    doca_dev_rep *r = nullptr;
    EXPECT_EQ(doca_dev_rep_open(nullptr, &r), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceTest, RepresentorOpenNeedsItsDeviceOpen)
{
    doca_dev *dev = open("03:00.0");
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    doca_dev_rep *r = nullptr;
    EXPECT_EQ(doca_dev_rep_open(reps[0], &r), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(g_log.find("is not open"), std::string::npos) << g_log;
    EXPECT_EQ(doca_dev_rep_open(reps[0], nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
}

TEST_F(DeviceTest, PrivilegePolicyRefusesNonMembers)
{
    std::string path =
        use_topology(policy_topology(R"({"representors": "group", "group": "sc-no-such-group"})"));
    credentials user{4242, 4242, {4242}};
    set_credentials_override(&user);

    doca_dev *dev = open("03:00.0");
    ASSERT_NE(dev, nullptr);
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    // Listing is not restricted; opening is.
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    ASSERT_EQ(n, 1u);
    doca_dev_rep *r = nullptr;
    g_log.clear();
    EXPECT_EQ(doca_dev_rep_open(reps[0], &r), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(g_log.find("doca_dev_rep_open: pf0hpf (0000:b1:00.0): permission denied: the "
                         "privilege policy of " +
                         path),
              std::string::npos)
        << g_log;

    credentials root{0, 0, {}};
    set_credentials_override(&root);
    ASSERT_EQ(doca_dev_rep_open(reps[0], &r), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_rep_close(r), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

TEST_F(DeviceTest, PrivilegePolicyRootOnly)
{
    use_topology(policy_topology(R"({"representors": "root"})"));
    credentials user{4242, 0, {0}}; // even in group 0: the rule is root only
    set_credentials_override(&user);
    doca_dev *dev = open("03:00.1");
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, 0, &reps, &n), DOCA_SUCCESS);
    doca_dev_rep *r = nullptr;
    EXPECT_EQ(doca_dev_rep_open(reps[0], &r), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_NE(g_log.find("reserves representors to root"), std::string::npos) << g_log;
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

TEST_F(DeviceTest, NicModeHasNoRepresentors)
{
    use_topology(R"({"bluefields": [{"id": "bf0", "mode": "nic",
        "host": [{"pci": "b1:00.0"}],
        "dpu": [{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"}]}]}]})");
    doca_dev *dev = open("03:00.0");
    ASSERT_NE(dev, nullptr);
    EXPECT_FALSE(dev->info()->server_capable());
    EXPECT_FALSE(find("b1:00.0")->client_capable());
    uint8_t v = 9;
    EXPECT_EQ(doca_devinfo_rep_cap_is_filter_net_supported(dev->info(), &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 0);
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    EXPECT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_NE(g_log.find("is in NIC mode"), std::string::npos) << g_log;
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

TEST_F(DeviceTest, SubFunctions)
{
    use_topology(R"({"bluefields": [{"id": "bf0",
        "host": [{"pci": "b1:00.0"}, {"type": "sf", "pf": 0, "sf": 88, "sf_index": 3}],
        "dpu": [{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0", "sf": 88}]},
                {"type": "sf", "pf": 0, "sf": 0}]}]})");
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    ASSERT_EQ(n, 4u);
    // NVIDIA's open_doca_device_with_sf pattern: func type, then SF index.
    doca_devinfo *found = nullptr;
    for (uint32_t i = 0; i < n; ++i) {
        doca_pci_func_type t = DOCA_PCI_FUNC_TYPE_PF;
        uint32_t idx = 0;
        ASSERT_EQ(doca_devinfo_get_pci_func_type(list[i], &t), DOCA_SUCCESS);
        if (t == DOCA_PCI_FUNC_TYPE_SF &&
            doca_devinfo_get_sf_index(list[i], &idx) == DOCA_SUCCESS && idx == 3)
            found = list[i];
    }
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(pci_of(found), "0000:b1:00.0");
    EXPECT_EQ(found->function_id(), "bf0/host/0000:b1:00.0/sf88");
    EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);

    doca_dev *dev = open("03:00.0");
    doca_devinfo_rep **reps = nullptr;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    ASSERT_EQ(n, 1u);
    doca_pci_func_type t = DOCA_PCI_FUNC_TYPE_PF;
    EXPECT_EQ(doca_devinfo_rep_get_pci_func_type(reps[0], &t), DOCA_SUCCESS);
    EXPECT_EQ(t, DOCA_PCI_FUNC_TYPE_SF);
    EXPECT_EQ(rep_name(reps[0]), "pf0sf88");
    EXPECT_EQ(reps[0]->function_id(), found->function_id());
    // DOCA 3.1: the representor's SF number, as in its name (DPUmesh selects by it).
    uint32_t sfnum = 0;
    EXPECT_EQ(doca_devinfo_rep_get_sf_index(reps[0], &sfnum), DOCA_SUCCESS);
    EXPECT_EQ(sfnum, 88u);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);

    // A DPU-side SF manages no representors.
    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    doca_dev *sf = nullptr;
    ASSERT_EQ(doca_dev_open(list[3], &sf), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_rep_create_list(sf, 0, &reps, &n), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_NE(g_log.find("is a sub-function"), std::string::npos) << g_log;
    EXPECT_EQ(doca_dev_close(sf), DOCA_SUCCESS);
}

TEST_F(DeviceTest, SampleFlow)
{
    // The device-opening part of NVIDIA's ctrl-path samples, with their default addresses.
    // Server (DPU side): -p 03:00.0 -r b1:00.0
    ::setenv("SOFTCOMCH_SIDE", "dpu", 1);
    reset_machine_for_testing();
    doca_dev *dev = open("03:00.0");
    ASSERT_NE(dev, nullptr);
    EXPECT_TRUE(doca_dev_as_devinfo(dev)->server_capable());
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
              DOCA_SUCCESS);
    doca_dev_rep *rep = nullptr;
    for (uint32_t i = 0; i < n && !rep; ++i) {
        uint8_t eq = 0;
        ASSERT_EQ(doca_devinfo_rep_is_equal_pci_addr(reps[i], "b1:00.0", &eq), DOCA_SUCCESS);
        if (eq) {
            ASSERT_EQ(doca_dev_rep_open(reps[i], &rep), DOCA_SUCCESS);
        }
    }
    ASSERT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    ASSERT_NE(rep, nullptr);
    std::string server_key = rep->info()->function_id();
    EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);

    // Client (host side): -p b1:00.0; it meets the server on the same function key.
    ::setenv("SOFTCOMCH_SIDE", "host", 1);
    reset_machine_for_testing();
    dev = open("b1:00.0");
    ASSERT_NE(dev, nullptr);
    EXPECT_TRUE(doca_dev_as_devinfo(dev)->client_capable());
    EXPECT_FALSE(doca_dev_as_devinfo(dev)->server_capable());
    EXPECT_EQ(doca_dev_as_devinfo(dev)->function_id(), server_key);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

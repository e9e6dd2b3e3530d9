// SPDX-License-Identifier: Apache-2.0
//
// doca_mmap.h, doca_buf.h and doca_buf_inventory.h through their C API: life cycles, every
// documented error code, buf reference counting and lists, and the C++ accessors the Comch
// layer uses. The C thunks are compiled into this test (unit tests link sc_common + sc_core only).
#define DOCA_ALLOW_EXPERIMENTAL_API 1

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "capi/common/buf.cpp"           // NOLINT: the thunks under test
#include "capi/common/buf_inventory.cpp" // NOLINT
#include "capi/common/dev.cpp"           // NOLINT
#include "capi/common/mmap.cpp"          // NOLINT
#include "core/topology.hpp"

namespace {

class MmapTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ::unsetenv("SOFTCOMCH_TOPOLOGY");
        ::unsetenv("SOFTCOMCH_SIDE");
        softcomch::core::reset_machine_for_testing();
        mem_.resize(1 << 16);
        dev_ = open_dev(0);
    }
    void TearDown() override
    {
        EXPECT_EQ(doca_dev_close(dev_), DOCA_SUCCESS);
        softcomch::core::reset_machine_for_testing();
    }

    static doca_dev *open_dev(uint32_t index)
    {
        doca_devinfo **list = nullptr;
        uint32_t n = 0;
        EXPECT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
        doca_dev *d = nullptr;
        EXPECT_EQ(doca_dev_open(list[index], &d), DOCA_SUCCESS);
        EXPECT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
        return d;
    }

    // A started mmap over mem_ with dev_ and PCI read/write, as the Comch fast-path samples do.
    doca_mmap *started_mmap()
    {
        doca_mmap *m = nullptr;
        EXPECT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_add_dev(m, dev_), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_memrange(m, mem_.data(), mem_.size()), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
        return m;
    }

    static doca_buf_inventory *started_inventory(size_t n)
    {
        doca_buf_inventory *inv = nullptr;
        EXPECT_EQ(doca_buf_inventory_create(n, &inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
        return inv;
    }

    uint8_t *mem() { return mem_.data(); }

    std::vector<uint8_t> mem_;
    doca_dev *dev_ = nullptr;
};

uint32_t num_free(const doca_buf_inventory *inv)
{
    uint32_t n = 0;
    EXPECT_EQ(doca_buf_inventory_get_num_free_elements(inv, &n), DOCA_SUCCESS);
    return n;
}

uint32_t num_bufs(const doca_mmap *m)
{
    uint32_t n = 0;
    EXPECT_EQ(doca_mmap_get_num_bufs(m, &n), DOCA_SUCCESS);
    return n;
}

struct free_record {
    void *addr = nullptr;
    size_t len = 0;
    void *cookie = nullptr;
    int calls = 0;
};

void record_free(void *addr, size_t len, void *cookie)
{
    auto *r = static_cast<free_record *>(cookie);
    r->addr = addr;
    r->len = len;
    r->cookie = cookie;
    ++r->calls;
}

} // namespace

// ------------------------------------------------------------------------------------------------
// mmap
// ------------------------------------------------------------------------------------------------

TEST_F(MmapTest, Lifecycle)
{
    doca_mmap *m = nullptr;
    EXPECT_EQ(doca_mmap_create(nullptr), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    EXPECT_TRUE(m->tag_.is(softcomch::object_kind::mmap));

    void *addr = nullptr;
    size_t len = 0;
    EXPECT_EQ(doca_mmap_get_memrange(m, &addr, &len), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_start(m), DOCA_ERROR_BAD_STATE); // no memory range yet
    EXPECT_EQ(doca_mmap_stop(m), DOCA_ERROR_BAD_STATE);  // not started

    EXPECT_EQ(doca_mmap_set_memrange(m, nullptr, 10), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_memrange(m, mem(), 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_memrange(m, reinterpret_cast<void *>(UINTPTR_MAX - 4), 10),
              DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem(), 4096), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_memrange(m, mem(), 4096), DOCA_ERROR_NOT_PERMITTED); // once only
    ASSERT_EQ(doca_mmap_get_memrange(m, &addr, &len), DOCA_SUCCESS);
    EXPECT_EQ(addr, mem());
    EXPECT_EQ(len, 4096u);

    union doca_data ud;
    ud.u64 = 0xfeed;
    EXPECT_EQ(doca_mmap_set_user_data(m, ud), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_enable_thread_safety(m), DOCA_SUCCESS);
    EXPECT_TRUE(m->thread_safe());
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    EXPECT_TRUE(m->started());

    // Configuration after start.
    EXPECT_EQ(doca_mmap_start(m), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_set_memrange(m, mem(), 8), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
              DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_set_user_data(m, ud), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_set_free_cb(m, record_free, nullptr), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_enable_thread_safety(m), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_add_dev(m, dev_), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_rm_dev(m, dev_), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_set_max_num_devices(m, 4), DOCA_ERROR_NOT_PERMITTED);

    // Getters work in any state.
    union doca_data got;
    EXPECT_EQ(doca_mmap_get_user_data(m, &got), DOCA_SUCCESS);
    EXPECT_EQ(got.u64, 0xfeedu);
    uint32_t max = 0;
    EXPECT_EQ(doca_mmap_get_max_num_devices(m, &max), DOCA_SUCCESS);
    EXPECT_EQ(max, 16u);
    uint8_t flag = 9;
    EXPECT_EQ(doca_mmap_get_exported(m, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 0);
    EXPECT_EQ(doca_mmap_get_from_export(m, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 0);
    EXPECT_EQ(num_bufs(m), 0u);

    // Stop, reconfigure, restart.
    ASSERT_EQ(doca_mmap_stop(m), DOCA_SUCCESS);
    EXPECT_FALSE(m->started());
    EXPECT_EQ(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_memrange(m, mem(), 8), DOCA_ERROR_NOT_PERMITTED); // still once only
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS); // implicitly stops
}

TEST_F(MmapTest, ArgumentAndTagChecks)
{
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    void *addr;
    size_t len;
    union doca_data ud;
    uint32_t u32;
    uint8_t u8;
    EXPECT_EQ(doca_mmap_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_start(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_stop(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_add_dev(m, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_add_dev(nullptr, dev_), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_rm_dev(m, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_memrange(m, nullptr, &len), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_memrange(m, &addr, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_free_cb(m, nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_user_data(m, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_user_data(nullptr, &ud), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_max_num_devices(m, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_num_bufs(m, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_exported(m, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_get_from_export(nullptr, &u8), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_max_num_devices(nullptr, 2), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_permissions(nullptr, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_user_data(nullptr, ud), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_enable_thread_safety(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_memrange(nullptr, mem(), 1), DOCA_ERROR_INVALID_VALUE);
    (void)u32;

    // Another kind of object where an mmap is expected.
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
    auto *fake = reinterpret_cast<doca_mmap *>(inv);
    EXPECT_EQ(doca_mmap_start(fake), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_destroy(fake), DOCA_ERROR_INVALID_VALUE);
    // A closed device where an open one is expected.
    doca_dev *other = open_dev(1);
    ASSERT_EQ(doca_dev_close(other), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_add_dev(m, other), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(MmapTest, Permissions)
{
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    EXPECT_EQ(m->permissions(), uint32_t{DOCA_ACCESS_FLAG_LOCAL_READ_WRITE}); // default
    EXPECT_EQ(doca_mmap_set_permissions(m, 0x80), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY |
                                               DOCA_ACCESS_FLAG_PCI_READ_WRITE),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(m->permissions(), uint32_t{DOCA_ACCESS_FLAG_LOCAL_READ_WRITE});
    EXPECT_EQ(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_permissions(
                  m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
                         DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC |
                         DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING),
              DOCA_SUCCESS);
    EXPECT_EQ(m->permissions(), 0x6fu);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(MmapTest, Devices)
{
    doca_dev *dev2 = open_dev(3); // 03:00.0
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_rm_dev(m, dev_), DOCA_ERROR_NOT_FOUND);
    ASSERT_EQ(doca_mmap_add_dev(m, dev_), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_add_dev(m, dev_), DOCA_ERROR_ALREADY_EXIST);
    EXPECT_EQ(doca_mmap_set_max_num_devices(m, 0), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_mmap_set_max_num_devices(m, 1), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_add_dev(m, dev2), DOCA_ERROR_NO_MEMORY);
    ASSERT_EQ(doca_mmap_set_max_num_devices(m, 2), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(m, dev2), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_max_num_devices(m, 1), DOCA_ERROR_INVALID_VALUE); // below the count
    EXPECT_EQ(m->devices().size(), 2u);
    EXPECT_TRUE(m->has_device(dev2));

    // The mmap holds its devices: removing one releases it.
    ASSERT_EQ(doca_mmap_rm_dev(m, dev2), DOCA_SUCCESS);
    EXPECT_FALSE(m->has_device(dev2));
    EXPECT_EQ(doca_dev_close(dev2), DOCA_SUCCESS);
    // Destroy releases the rest.
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(dev_->holders(), 0u);
}

TEST_F(MmapTest, FreeCallback)
{
    free_record rec;
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem(), 128), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_free_cb(m, record_free, &rec), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(rec.calls, 0); // never started: the memory was never taken over

    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem() + 64, 128), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_free_cb(m, record_free, &rec), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(rec.calls, 1);
    EXPECT_EQ(rec.addr, mem() + 64);
    EXPECT_EQ(rec.len, 128u);
    EXPECT_EQ(rec.cookie, &rec);
}

TEST_F(MmapTest, ExportAndImportInOneProcess)
{
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem(), 4096), DOCA_SUCCESS);
    const void *desc = nullptr;
    size_t desc_len = 0;
    EXPECT_EQ(doca_mmap_export_pci(m, dev_, &desc, &desc_len), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_export_pci(m, dev_, &desc, &desc_len),
              DOCA_ERROR_NOT_PERMITTED); // no PCI permission
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);

    m = started_mmap(); // dev_ (b1:00.0, host side), PCI read/write
    doca_dev *dev2 = open_dev(1);
    EXPECT_EQ(doca_mmap_export_pci(m, dev2, &desc, &desc_len), DOCA_ERROR_NOT_FOUND); // not added
    EXPECT_EQ(doca_mmap_export_pci(m, dev_, nullptr, &desc_len), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_export_pci(m, dev_, &desc, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(desc, nullptr);
    ASSERT_EQ(doca_mmap_export_pci(m, dev_, &desc, &desc_len), DOCA_SUCCESS);
    ASSERT_NE(desc, nullptr);
    EXPECT_GT(desc_len, 0u);
    EXPECT_LE(desc_len, 512u) << "NVIDIA's dma_copy_dpu reads at most 512 bytes of it";
    const void *again = nullptr;
    size_t again_len = 0;
    EXPECT_EQ(doca_mmap_export_pci(m, dev_, &again, &again_len), DOCA_SUCCESS);
    EXPECT_EQ(again, desc) << "the map keeps one descriptor per device";
    EXPECT_EQ(again_len, desc_len);
    EXPECT_EQ(doca_mmap_export_rdma(m, dev_, &desc, &desc_len), DOCA_ERROR_NOT_SUPPORTED);
    doca_dpa_dev_mmap_t h = 0;
    EXPECT_EQ(doca_mmap_dev_get_dpa_handle(m, dev_, &h), DOCA_ERROR_NOT_SUPPORTED);
    uint8_t exported = 9;
    EXPECT_EQ(doca_mmap_get_exported(m, &exported), DOCA_SUCCESS);
    EXPECT_EQ(exported, 1);

    // Imported on the other side of the PCIe link (03:00.0), in this same process.
    doca_dev *dpu = open_dev(3);
    const std::vector<uint8_t> bytes(static_cast<const uint8_t *>(again),
                                     static_cast<const uint8_t *>(again) + again_len);
    doca_mmap *imported = nullptr;
    union doca_data ud;
    ud.u64 = 42;
    ASSERT_EQ(doca_mmap_create_from_export(&ud, bytes.data(), bytes.size(), dpu, &imported),
              DOCA_SUCCESS);
    ASSERT_NE(imported, nullptr);
    EXPECT_TRUE(imported->from_export());
    EXPECT_TRUE(imported->started());
    EXPECT_EQ(imported->addr(), mem()) << "the exporter's addresses";
    EXPECT_EQ(imported->len(), mem_.size());
    EXPECT_EQ(imported->user_data().u64, 42u);
    ASSERT_NE(imported->remote(), nullptr);
    const char *why = nullptr;
    mem()[100] = 0x5a;
    uint8_t b = 0;
    EXPECT_EQ(imported->remote()->read(uint64_t(uintptr_t(mem() + 100)), &b, 1, &why),
              DOCA_SUCCESS);
    EXPECT_EQ(b, 0x5a);
    b = 0xa5;
    EXPECT_EQ(imported->remote()->write(uint64_t(uintptr_t(mem() + 200)), &b, 1, &why),
              DOCA_SUCCESS);
    EXPECT_EQ(mem()[200], 0xa5);
    EXPECT_EQ(imported->remote()->read(uint64_t(uintptr_t(mem() + mem_.size())), &b, 1, &why),
              DOCA_ERROR_INVALID_VALUE)
        << "outside the export";
    // On the exporter's own side, or from garbage, refused.
    doca_mmap *refused = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, bytes.data(), bytes.size(), dev_, &refused),
              DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, bytes.data(), bytes.size() - 1, dpu, &refused),
              DOCA_ERROR_INVALID_VALUE);
    char blob[16] = {};
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, blob, sizeof blob, dpu, &refused),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, blob, 0, dpu, &refused),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, nullptr, 4, dpu, &refused),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, blob, 4, nullptr, &refused),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, blob, 4, dpu, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(refused, nullptr);
    // Destroying the exporter revokes the export: the import's accesses fail from then on.
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(imported->remote()->read(uint64_t(uintptr_t(mem() + 100)), &b, 1, &why),
              DOCA_ERROR_NOT_PERMITTED);
    EXPECT_NE(std::string(why).find("revoked"), std::string::npos) << why;
    // ... and a new import of the old descriptor too.
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, bytes.data(), bytes.size(), dpu, &refused),
              DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_destroy(imported), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);

    uint8_t cap = 9;
    EXPECT_EQ(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(dev_), &cap), DOCA_SUCCESS);
    EXPECT_EQ(cap, 1);
    cap = 9;
    EXPECT_EQ(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(dev_), &cap),
              DOCA_SUCCESS);
    EXPECT_EQ(cap, 1);
    EXPECT_EQ(doca_mmap_cap_is_export_pci_supported(nullptr, &cap), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(dev_), nullptr),
              DOCA_ERROR_INVALID_VALUE);

    doca_mmap *fresh = nullptr;
    ASSERT_EQ(doca_mmap_create(&fresh), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_dmabuf_memrange(fresh, 3, mem(), 0, 64), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_mmap_set_dpa_memrange(fresh, nullptr, 0, 64), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_mmap_set_dmabuf_memrange(nullptr, 3, mem(), 0, 64), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_destroy(fresh), DOCA_SUCCESS);

    EXPECT_EQ(doca_dev_close(dev2), DOCA_SUCCESS);
}

TEST_F(MmapTest, ContainsAccessor)
{
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    EXPECT_FALSE(m->contains(mem(), 1));
    ASSERT_EQ(doca_mmap_set_memrange(m, mem() + 100, 50), DOCA_SUCCESS);
    EXPECT_TRUE(m->has_memrange());
    EXPECT_EQ(m->addr(), mem() + 100);
    EXPECT_EQ(m->len(), 50u);
    EXPECT_TRUE(m->contains(mem() + 100, 50));
    EXPECT_TRUE(m->contains(mem() + 149, 1));
    EXPECT_TRUE(m->contains(mem() + 150, 0));
    EXPECT_FALSE(m->contains(mem() + 149, 2));
    EXPECT_FALSE(m->contains(mem() + 99, 1));
    EXPECT_FALSE(m->contains(mem() + 100, 51));
    EXPECT_FALSE(m->contains(mem() + 100, SIZE_MAX));
    EXPECT_FALSE(m->contains(nullptr, 0));
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

// ------------------------------------------------------------------------------------------------
// inventory
// ------------------------------------------------------------------------------------------------

TEST_F(MmapTest, InventoryLifecycle)
{
    doca_buf_inventory *inv = nullptr;
    EXPECT_EQ(doca_buf_inventory_create(0, &inv), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_create(size_t{UINT32_MAX} + 1, &inv), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_create(4, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(inv, nullptr);
    ASSERT_EQ(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
    EXPECT_TRUE(inv->tag_.is(softcomch::object_kind::buf_inventory));

    uint32_t n = 0;
    EXPECT_EQ(doca_buf_inventory_get_num_elements(inv, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 4u);
    EXPECT_EQ(num_free(inv), 4u);
    union doca_data ud;
    ud.ptr = &n;
    EXPECT_EQ(doca_buf_inventory_set_user_data(inv, ud), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_expand(inv, 2), DOCA_ERROR_BAD_STATE); // not started
    EXPECT_EQ(doca_buf_inventory_stop(inv), DOCA_ERROR_BAD_STATE);

    doca_mmap *m = started_mmap();
    doca_buf *b = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem(), 64, &b),
              DOCA_ERROR_BAD_STATE); // not started
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_start(inv), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_inventory_set_user_data(inv, ud), DOCA_ERROR_BAD_STATE); // after first start
    union doca_data got;
    EXPECT_EQ(doca_buf_inventory_get_user_data(inv, &got), DOCA_SUCCESS);
    EXPECT_EQ(got.ptr, &n);

    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem(), 64, &b), DOCA_SUCCESS);
    EXPECT_EQ(num_free(inv), 3u);
    EXPECT_EQ(doca_buf_inventory_stop(inv), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_ERROR_IN_USE);

    ASSERT_EQ(doca_buf_inventory_expand(inv, 3), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_get_num_elements(inv, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 7u);
    EXPECT_EQ(num_free(inv), 6u);
    EXPECT_EQ(doca_buf_inventory_expand(inv, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_expand(inv, UINT32_MAX), DOCA_ERROR_INVALID_VALUE);

    ASSERT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(num_free(inv), 7u);
    ASSERT_EQ(doca_buf_inventory_stop(inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);   // restartable
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS); // implicitly stops
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);

    EXPECT_EQ(doca_buf_inventory_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_start(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_get_num_elements(nullptr, &n), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_get_num_free_elements(nullptr, &n), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_get_user_data(nullptr, &got), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_expand(nullptr, 1), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(MmapTest, GetBufChecksRanges)
{
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem() + 1024, 4096), DOCA_SUCCESS);
    doca_buf_inventory *inv = started_inventory(2);
    doca_buf *b = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem() + 1024, 64, &b),
              DOCA_ERROR_BAD_STATE); // mmap idle
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);

    uint8_t *base = mem() + 1024;
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, base - 1, 64, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, base + 4000, 97, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, base, 4097, &b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, base, 64, base + 32, 33, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, base + 8, 64, base, 4, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, nullptr, 64, base, 4, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, base, 64, nullptr, 0, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, base, 64, base, 0, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(nullptr, m, base, 64, base, 0, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, nullptr, base, 64, base, 0, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, reinterpret_cast<doca_mmap *>(inv), base, 64,
                                                 base, 0, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(b, nullptr);
    EXPECT_EQ(num_free(inv), 2u);

    // The whole range, and a window at its very end.
    doca_buf *whole = nullptr, *tail = nullptr, *extra = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, m, base, 4096, &whole), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, base + 4000, 96, base + 4096, 0, &tail),
              DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, base, 8, &extra), DOCA_ERROR_NO_MEMORY);
    EXPECT_EQ(num_bufs(m), 2u);
    EXPECT_EQ(doca_mmap_stop(m), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_dec_refcount(whole, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(tail, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(num_bufs(m), 0u);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

// DOCA 3.2's re-pointing of a held buf (NVIDIA's storage application reuses its bufs per block).
TEST_F(MmapTest, ReuseByAddrAndByDataRepointAHeldBuf)
{
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem(), 8192), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    doca_buf_inventory *inv = started_inventory(2);
    doca_buf *b = nullptr, *c = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, m, mem(), 64, &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_reuse_by_data(b, mem() + 4096, 100), DOCA_SUCCESS);
    void *p = nullptr;
    size_t n = 0;
    EXPECT_EQ(doca_buf_get_head(b, &p), DOCA_SUCCESS);
    EXPECT_EQ(p, mem() + 4096);
    EXPECT_EQ(doca_buf_get_data(b, &p), DOCA_SUCCESS);
    EXPECT_EQ(p, mem() + 4096);
    EXPECT_EQ(doca_buf_get_len(b, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 100u);
    EXPECT_EQ(doca_buf_get_data_len(b, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 100u);
    ASSERT_EQ(doca_buf_inventory_buf_reuse_by_addr(b, mem() + 16, 32), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_get_len(b, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 32u);
    EXPECT_EQ(doca_buf_get_data_len(b, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(num_free(inv), 1u) << "the buf stays taken";
    // Refused: outside its mmap, NULL, a buf in a list, a released buf.
    EXPECT_EQ(doca_buf_inventory_buf_reuse_by_addr(b, mem() + 8190, 4), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_reuse_by_data(b, nullptr, 4), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_reuse_by_data(nullptr, mem(), 4), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_len(b, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 32u) << "a refusal changes nothing";
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, m, mem() + 64, 64, &c), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(b, c), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_reuse_by_addr(c, mem(), 8), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_buf_unchain_list(b, c), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(c, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_reuse_by_addr(c, mem(), 8), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(MmapTest, BufAccessorsAndDataWindow)
{
    doca_mmap *m = started_mmap();
    doca_buf_inventory *inv = started_inventory(4);
    doca_buf *dst = nullptr, *src = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem() + 256, 1024, &dst), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, m, mem() + 16, 5, &src), DOCA_SUCCESS);

    // C++ accessors used by the Comch fast path.
    EXPECT_TRUE(dst->tag_.is(softcomch::object_kind::buf));
    EXPECT_EQ(dst->head(), mem() + 256);
    EXPECT_EQ(dst->len(), 1024u);
    EXPECT_EQ(dst->data(), mem() + 256);
    EXPECT_EQ(dst->data_len(), 0u);
    EXPECT_EQ(dst->mmap(), m);
    EXPECT_EQ(dst->inventory(), inv);
    EXPECT_EQ(dst->refcount(), 1u);
    EXPECT_EQ(src->data(), mem() + 16);
    EXPECT_EQ(src->data_len(), 5u);
    EXPECT_TRUE(inv->owns(dst));
    EXPECT_FALSE(inv->owns(reinterpret_cast<doca_buf *>(mem())));

    // And the C getters.
    void *p = nullptr;
    size_t len = 0;
    EXPECT_EQ(doca_buf_get_head(dst, &p), DOCA_SUCCESS);
    EXPECT_EQ(p, mem() + 256);
    EXPECT_EQ(doca_buf_get_len(dst, &len), DOCA_SUCCESS);
    EXPECT_EQ(len, 1024u);
    EXPECT_EQ(doca_buf_get_data(src, &p), DOCA_SUCCESS);
    EXPECT_EQ(p, mem() + 16);
    EXPECT_EQ(doca_buf_get_data_len(src, &len), DOCA_SUCCESS);
    EXPECT_EQ(len, 5u);

    EXPECT_EQ(doca_buf_set_data(dst, mem() + 300, 100), DOCA_SUCCESS);
    EXPECT_EQ(dst->data(), mem() + 300);
    EXPECT_EQ(dst->data_len(), 100u);
    EXPECT_EQ(doca_buf_set_data_len(dst, 980), DOCA_SUCCESS); // ends exactly at the buffer's end
    EXPECT_EQ(doca_buf_set_data_len(dst, 981), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_set_data(dst, mem() + 255, 1), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_set_data(dst, mem() + 1279, 2), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_set_data(dst, nullptr, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(dst->data_len(), 980u); // unchanged by refusals
    EXPECT_EQ(doca_buf_reset_data_len(dst), DOCA_SUCCESS);
    EXPECT_EQ(dst->data(), mem() + 300);
    EXPECT_EQ(dst->data_len(), 0u);

    EXPECT_EQ(doca_buf_get_head(dst, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_len(nullptr, &len), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_data(dst, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_data_len(nullptr, &len), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_set_data_len(nullptr, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_reset_data_len(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_data(reinterpret_cast<doca_buf *>(m), &p), DOCA_ERROR_INVALID_VALUE);

    EXPECT_EQ(doca_buf_dec_refcount(dst, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(src, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(MmapTest, Refcount)
{
    doca_mmap *m = started_mmap();
    doca_buf_inventory *inv = started_inventory(2);
    doca_buf *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem(), 64, &b), DOCA_SUCCESS);
    uint16_t rc = 0;
    EXPECT_EQ(doca_buf_get_refcount(b, &rc), DOCA_SUCCESS);
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(doca_buf_inc_refcount(b, &rc), DOCA_SUCCESS);
    EXPECT_EQ(rc, 1); // the count before the call
    EXPECT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(b->refcount(), 3);
    EXPECT_EQ(doca_buf_dec_refcount(b, &rc), DOCA_SUCCESS);
    EXPECT_EQ(rc, 3);
    EXPECT_EQ(num_free(inv), 1u);

    // Up to the 16-bit maximum, then TOO_BIG.
    while (b->refcount() < UINT16_MAX)
        ASSERT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_SUCCESS);
    rc = 7;
    EXPECT_EQ(doca_buf_inc_refcount(b, &rc), DOCA_ERROR_TOO_BIG);
    EXPECT_EQ(rc, 7);
    while (b->refcount() > 1)
        ASSERT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(num_free(inv), 1u);
    EXPECT_EQ(doca_buf_dec_refcount(b, &rc), DOCA_SUCCESS);
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(num_free(inv), 2u);
    EXPECT_EQ(num_bufs(m), 0u);

    // Released: its count is 0 and reference operations are refused.
    EXPECT_EQ(doca_buf_get_refcount(b, &rc), DOCA_SUCCESS);
    EXPECT_EQ(rc, 0);
    EXPECT_FALSE(b->in_use());
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(num_free(inv), 2u);
    EXPECT_EQ(doca_buf_inc_refcount(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_dec_refcount(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_refcount(b, nullptr), DOCA_ERROR_INVALID_VALUE);

    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(MmapTest, Lists)
{
    doca_mmap *m = started_mmap();
    doca_buf_inventory *inv = started_inventory(4);
    doca_buf_inventory *inv2 = started_inventory(1); // lists may mix inventories
    doca_buf *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem(), 64, &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem() + 64, 64, &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv2, m, mem() + 128, 64, &c), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, mem() + 192, 64, &d), DOCA_SUCCESS);

    uint8_t f = 9;
    uint32_t n = 0;
    EXPECT_EQ(doca_buf_is_in_list(a, &f), DOCA_SUCCESS);
    EXPECT_EQ(f, 0);
    EXPECT_EQ(doca_buf_get_list_len(a, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 1u);

    EXPECT_EQ(doca_buf_chain_list(a, a), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(a, c), DOCA_SUCCESS); // a -> b -> c
    EXPECT_EQ(doca_buf_get_list_len(a, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 3u);
    doca_buf *x = nullptr;
    EXPECT_EQ(doca_buf_get_next_in_list(a, &x), DOCA_SUCCESS);
    EXPECT_EQ(x, b);
    EXPECT_EQ(doca_buf_get_next_in_list(c, &x), DOCA_SUCCESS);
    EXPECT_EQ(x, nullptr);
    EXPECT_EQ(doca_buf_get_last_in_list(a, &x), DOCA_SUCCESS);
    EXPECT_EQ(x, c);
    EXPECT_EQ(doca_buf_get_last_in_list(b, &x), DOCA_SUCCESS);
    EXPECT_EQ(x, c);
    EXPECT_EQ(doca_buf_is_first_in_list(a, &f), DOCA_SUCCESS);
    EXPECT_EQ(f, 1);
    EXPECT_EQ(doca_buf_is_first_in_list(b, &f), DOCA_SUCCESS);
    EXPECT_EQ(f, 0);
    EXPECT_EQ(doca_buf_is_last_in_list(c, &f), DOCA_SUCCESS);
    EXPECT_EQ(f, 1);
    EXPECT_EQ(doca_buf_is_last_in_list(a, &f), DOCA_SUCCESS);
    EXPECT_EQ(f, 0);
    EXPECT_EQ(doca_buf_is_in_list(b, &f), DOCA_SUCCESS);
    EXPECT_EQ(f, 1);

    // Non-head elements: no reference counting, no list-wide calls, not appendable.
    EXPECT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_get_list_len(b, &n), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_chain_list(b, d), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_chain_list(d, b), DOCA_ERROR_NOT_PERMITTED);
    uint16_t rc = 0;
    EXPECT_EQ(doca_buf_get_refcount(b, &rc), DOCA_SUCCESS);
    EXPECT_EQ(rc, 1);
    doca_buf *dup = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_dup(inv, b, &dup), DOCA_ERROR_NOT_PERMITTED);

    // A list to append must have a count of 1.
    ASSERT_EQ(doca_buf_inc_refcount(d, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_chain_list(a, d), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_buf_dec_refcount(d, nullptr), DOCA_SUCCESS);
    // chain_list_tail checks the tail it is given.
    EXPECT_EQ(doca_buf_chain_list_tail(a, b, d), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_buf_chain_list_tail(a, c, d), DOCA_SUCCESS); // a -> b -> c -> d
    EXPECT_EQ(a->list_len(), 4u);
    EXPECT_EQ(doca_buf_chain_list_tail(nullptr, c, d), DOCA_ERROR_INVALID_VALUE);

    // Unchain: d's sub-list becomes its own list with a count of 1.
    EXPECT_EQ(doca_buf_unchain_list(a, a), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_unchain_list(b, c), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_buf_unchain_list(a, c), DOCA_SUCCESS); // a -> b   and   c -> d
    EXPECT_EQ(a->list_len(), 2u);
    EXPECT_EQ(c->list_len(), 2u);
    EXPECT_TRUE(c->is_head());
    EXPECT_EQ(c->refcount(), 1u);
    EXPECT_EQ(doca_buf_unchain_list(a, d), DOCA_ERROR_INVALID_VALUE); // not in a's list

    // Releasing a head releases its whole list, each element to its own inventory.
    EXPECT_EQ(num_free(inv), 1u); // a, b, d taken
    EXPECT_EQ(num_free(inv2), 0u);
    ASSERT_EQ(doca_buf_dec_refcount(c, nullptr), DOCA_SUCCESS); // c (inv2), d (inv)
    EXPECT_EQ(num_free(inv), 2u);
    EXPECT_EQ(num_free(inv2), 1u);
    ASSERT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(num_free(inv), 4u);
    EXPECT_EQ(num_bufs(m), 0u);

    // Released bufs cannot be chained.
    EXPECT_EQ(doca_buf_chain_list(a, b), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_unchain_list(a, b), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_chain_list(nullptr, b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_unchain_list(a, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_next_in_list(a, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_last_in_list(nullptr, &x), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_is_first_in_list(a, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_is_last_in_list(nullptr, &f), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_is_in_list(a, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_get_list_len(a, nullptr), DOCA_ERROR_INVALID_VALUE);

    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv2), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(MmapTest, Dup)
{
    doca_mmap *m = started_mmap();
    doca_buf_inventory *inv = started_inventory(3);
    doca_buf_inventory *other = started_inventory(4);
    doca_buf *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, mem(), 64, mem() + 8, 16, &a),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, m, mem() + 64, 32, &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);

    doca_buf *copy = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_dup(inv, a, &copy), DOCA_ERROR_NO_MEMORY); // 1 free, list of 2
    ASSERT_EQ(doca_buf_inventory_buf_dup(other, a, &copy), DOCA_SUCCESS);
    ASSERT_NE(copy, a);
    EXPECT_EQ(copy->inventory(), other);
    EXPECT_EQ(copy->refcount(), 1u);
    EXPECT_EQ(copy->list_len(), 2u);
    EXPECT_EQ(copy->head(), mem());
    EXPECT_EQ(copy->data(), mem() + 8);
    EXPECT_EQ(copy->data_len(), 16u);
    EXPECT_EQ(copy->next()->head(), mem() + 64);
    EXPECT_EQ(copy->next()->data_len(), 32u);
    EXPECT_EQ(num_bufs(m), 4u);
    EXPECT_EQ(num_free(other), 2u);

    EXPECT_EQ(doca_buf_inventory_buf_dup(other, a, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_dup(nullptr, a, &copy), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_dup(other, nullptr, &copy), DOCA_ERROR_INVALID_VALUE);

    ASSERT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    doca_buf *again = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_dup(other, a, &again),
              DOCA_ERROR_BAD_STATE); // released source
    ASSERT_EQ(doca_buf_dec_refcount(copy, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(num_free(other), 4u);
    ASSERT_EQ(doca_buf_inventory_stop(other), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_dup(other, a, &again),
              DOCA_ERROR_BAD_STATE); // stopped inventory
    EXPECT_EQ(doca_buf_inventory_destroy(other), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(MmapTest, SampleDataPathFlow)
{
    // comch_data_path_recv_msg: a 1 MiB receive buffer taken with get_by_addr (data_len 0).
    std::vector<uint8_t> big(1 << 20);
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(m, dev_), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, big.data(), big.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    doca_buf *buf = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, m, big.data(), big.size(), &buf),
              DOCA_SUCCESS);
    size_t len = 1;
    ASSERT_EQ(doca_buf_get_data_len(buf, &len), DOCA_SUCCESS);
    EXPECT_EQ(len, 0u);
    // A producer-style write of the received bytes, then the program reads them.
    std::memcpy(buf->data(), "hello", 5);
    ASSERT_EQ(doca_buf_set_data_len(buf, 5), DOCA_SUCCESS);
    void *data = nullptr;
    ASSERT_EQ(doca_buf_get_data(buf, &data), DOCA_SUCCESS);
    EXPECT_EQ(std::memcmp(data, "hello", 5), 0);
    ASSERT_EQ(doca_buf_dec_refcount(buf, nullptr), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

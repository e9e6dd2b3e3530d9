// SPDX-License-Identifier: Apache-2.0
#include "devices.hpp"

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_compress.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_sha.h>
#include <doca_sync_event.h>

#include <array>
#include <cctype>
#include <cstdio>

namespace softcomch::tools::inventory {

namespace {

using u32_query = doca_error_t (*)(const doca_devinfo *, uint32_t *);
using flag_query = doca_error_t (*)(const doca_devinfo *, uint8_t *);
using support_query = doca_error_t (*)(const doca_devinfo *);

struct numeric_row {
    const char *name;
    const char *query;
    u32_query fn;
};
struct support_row {
    const char *name;
    const char *query;
    support_query fn;
};
struct flag_row {
    const char *name;
    const char *query;
    flag_query fn;
};

#define SC_ROW(name, fn)                                                                           \
    {                                                                                              \
        name, #fn, fn                                                                              \
    }

constexpr std::array comch_support{
    support_row SC_ROW("server_is_supported", doca_comch_cap_server_is_supported),
    support_row SC_ROW("client_is_supported", doca_comch_cap_client_is_supported),
};
constexpr std::array comch_numeric{
    numeric_row SC_ROW("max_name_len", doca_comch_cap_get_max_name_len),
    numeric_row SC_ROW("max_msg_size", doca_comch_cap_get_max_msg_size),
    numeric_row SC_ROW("max_recv_queue_size", doca_comch_cap_get_max_recv_queue_size),
    numeric_row SC_ROW("max_clients", doca_comch_cap_get_max_clients),
    numeric_row SC_ROW("max_send_tasks", doca_comch_cap_get_max_send_tasks),
};
constexpr std::array consumer_numeric{
    numeric_row SC_ROW("max_num_tasks", doca_comch_consumer_cap_get_max_num_tasks),
    numeric_row SC_ROW("max_buf_size", doca_comch_consumer_cap_get_max_buf_size),
    numeric_row SC_ROW("max_buf_list_len", doca_comch_consumer_cap_get_max_buf_list_len),
    numeric_row SC_ROW("max_consumers", doca_comch_consumer_cap_get_max_consumers),
    numeric_row SC_ROW("max_imm_data_len", doca_comch_consumer_cap_get_max_imm_data_len),
};
constexpr std::array producer_numeric{
    numeric_row SC_ROW("max_num_tasks", doca_comch_producer_cap_get_max_num_tasks),
    numeric_row SC_ROW("max_buf_size", doca_comch_producer_cap_get_max_buf_size),
    numeric_row SC_ROW("max_buf_list_len", doca_comch_producer_cap_get_max_buf_list_len),
    numeric_row SC_ROW("max_producers", doca_comch_producer_cap_get_max_producers),
};
// doca_dev.h's device capabilities (doca_caps' "common" block).
constexpr std::array common_flags{
    flag_row SC_ROW("hotplug_manager_supported", doca_devinfo_cap_is_hotplug_manager_supported),
    flag_row SC_ROW("notification_moderation_supported",
                    doca_devinfo_cap_is_notification_moderation_supported),
    flag_row SC_ROW("accelerate_resource_reclaim_supported",
                    doca_devinfo_cap_is_accelerate_resource_reclaim_supported),
    flag_row SC_ROW("rep_filter_all_supported", doca_devinfo_rep_cap_is_filter_all_supported),
    flag_row SC_ROW("rep_filter_net_supported", doca_devinfo_rep_cap_is_filter_net_supported),
    flag_row SC_ROW("rep_filter_emulated_supported",
                    doca_devinfo_rep_cap_is_filter_emulated_supported),
};

#undef SC_ROW

template <class Rows> void add_numeric(cap_block &b, const Rows &rows, const doca_devinfo *d)
{
    for (const numeric_row &r : rows) {
        cap_value v{r.name, false, DOCA_SUCCESS, 0, r.query};
        uint32_t x = 0;
        v.status = r.fn(d, &x);
        v.value = x;
        b.values.push_back(std::move(v));
    }
}

cap_value support_value(const support_row &r, const doca_devinfo *d)
{
    return {r.name, true, r.fn(d), 0, r.query};
}

// A row answered by a query of any shape: `ask` returns the status and sets the value.
template <typename T, typename Ask>
void add_value(cap_block &b, const char *name, const char *query, Ask &&ask)
{
    T x{};
    cap_value v{name, false, ask(&x), 0, query};
    v.value = uint64_t(x);
    b.values.push_back(std::move(v));
}
void add_support(cap_block &b, const char *name, const char *query, doca_error_t status)
{
    b.values.push_back({name, true, status, 0, query});
}
// A yes/no answered through an out flag (0: printed as unsupported).
void add_flag(cap_block &b, const char *name, const char *query, doca_error_t status, uint8_t flag)
{
    b.values.push_back({name, true,
                        status == DOCA_SUCCESS && flag == 0 ? DOCA_ERROR_NOT_SUPPORTED : status, 0,
                        query});
}

#define SC_SUPPORT(b, name, fn, ...) add_support(b, name, #fn, fn(__VA_ARGS__))
#define SC_VALUE(b, T, name, fn, ...)                                                              \
    add_value<T>(b, name, #fn, [&](T *out) { return fn(__VA_ARGS__, out); })

// The DOCA libraries beside Comch: DMA, DOCA Core's mmap export, sync events and mmap advise,
// Compress and SHA (what their *_cap_* queries answer on this device).
void add_engines(std::vector<cap_block> &blocks, const doca_devinfo *d)
{
    cap_block dma{"dma", "doca-dma", {}};
    SC_SUPPORT(dma, "memcpy_is_supported", doca_dma_cap_task_memcpy_is_supported, d);
    SC_VALUE(dma, uint64_t, "memcpy_max_buf_size", doca_dma_cap_task_memcpy_get_max_buf_size, d);
    SC_VALUE(dma, uint32_t, "memcpy_max_buf_list_len",
             doca_dma_cap_task_memcpy_get_max_buf_list_len, d);
    blocks.push_back(std::move(dma));

    cap_block mmap{"mmap", "doca-common", {}};
    uint8_t flag = 0;
    doca_error_t rc = doca_mmap_cap_is_export_pci_supported(d, &flag);
    add_flag(mmap, "export_pci_supported", "doca_mmap_cap_is_export_pci_supported", rc, flag);
    rc = doca_mmap_cap_is_create_from_export_pci_supported(d, &flag);
    add_flag(mmap, "create_from_export_pci_supported",
             "doca_mmap_cap_is_create_from_export_pci_supported", rc, flag);
    blocks.push_back(std::move(mmap));

    cap_block sync{"sync_event", "doca-common", {}};
    SC_SUPPORT(sync, "create_from_export_supported",
               doca_sync_event_cap_is_create_from_export_supported, d);
    SC_SUPPORT(sync, "export_to_remote_pci_supported",
               doca_sync_event_cap_is_export_to_remote_pci_supported, d);
    SC_SUPPORT(sync, "export_to_dpa_supported", doca_sync_event_cap_is_export_to_dpa_supported, d);
    SC_SUPPORT(sync, "export_to_gpu_supported", doca_sync_event_cap_is_export_to_gpu_supported, d);
    SC_SUPPORT(sync, "task_get_is_supported", doca_sync_event_cap_task_get_is_supported, d);
    SC_SUPPORT(sync, "task_notify_set_is_supported",
               doca_sync_event_cap_task_notify_set_is_supported, d);
    SC_SUPPORT(sync, "task_notify_add_is_supported",
               doca_sync_event_cap_task_notify_add_is_supported, d);
    SC_SUPPORT(sync, "task_wait_eq_is_supported", doca_sync_event_cap_task_wait_eq_is_supported, d);
    SC_SUPPORT(sync, "task_wait_neq_is_supported", doca_sync_event_cap_task_wait_neq_is_supported,
               d);
    blocks.push_back(std::move(sync));

    cap_block advise{"mmap_advise", "doca-common", {}};
    SC_SUPPORT(advise, "task_cache_invalidate_is_supported",
               doca_mmap_advise_cap_task_cache_invalidate_is_supported, d);
    SC_VALUE(advise, uint64_t, "task_cache_invalidate_max_buf_size",
             doca_mmap_advise_task_cache_invalidate_get_max_buf_size, d);
    blocks.push_back(std::move(advise));

    cap_block compress{"compress", "doca-compress", {}};
#define SC_COMPRESS_ROWS(kind)                                                                     \
    SC_SUPPORT(compress, #kind "_is_supported", doca_compress_cap_task_##kind##_is_supported, d);  \
    SC_VALUE(compress, uint64_t, #kind "_max_buf_size",                                            \
             doca_compress_cap_task_##kind##_get_max_buf_size, d);                                 \
    SC_VALUE(compress, uint32_t, #kind "_max_buf_list_len",                                        \
             doca_compress_cap_task_##kind##_get_max_buf_list_len, d)
    SC_COMPRESS_ROWS(compress_deflate);
    SC_COMPRESS_ROWS(decompress_deflate);
    SC_COMPRESS_ROWS(decompress_lz4_stream);
    SC_COMPRESS_ROWS(decompress_lz4_block);
#undef SC_COMPRESS_ROWS
    blocks.push_back(std::move(compress));

    cap_block sha{"sha", "doca-sha", {}};
    constexpr std::array<std::pair<doca_sha_algorithm, const char *>, 3> algs{
        {{DOCA_SHA_ALGORITHM_SHA1, "sha1"},
         {DOCA_SHA_ALGORITHM_SHA256, "sha256"},
         {DOCA_SHA_ALGORITHM_SHA512, "sha512"}}};
    for (const auto &[alg, an] : algs) {
        const std::string a(an);
        sha.values.push_back({"hash_" + a + "_supported", true,
                              doca_sha_cap_task_hash_get_supported(d, alg), 0,
                              "doca_sha_cap_task_hash_get_supported"});
        sha.values.push_back({"partial_hash_" + a + "_supported", true,
                              doca_sha_cap_task_partial_hash_get_supported(d, alg), 0,
                              "doca_sha_cap_task_partial_hash_get_supported"});
        uint32_t x = 0;
        cap_value v{"min_dst_buf_size_" + a, false, doca_sha_cap_get_min_dst_buf_size(d, alg, &x),
                    0, "doca_sha_cap_get_min_dst_buf_size"};
        v.value = x;
        sha.values.push_back(v);
        v = {"partial_hash_block_size_" + a, false,
             doca_sha_cap_get_partial_hash_block_size(d, alg, &x), 0,
             "doca_sha_cap_get_partial_hash_block_size"};
        v.value = x;
        sha.values.push_back(v);
    }
    SC_VALUE(sha, uint64_t, "max_src_buf_size", doca_sha_cap_get_max_src_buf_size, d);
    SC_VALUE(sha, uint32_t, "max_list_buf_num_elem", doca_sha_cap_get_max_list_buf_num_elem, d);
    blocks.push_back(std::move(sha));
}

#undef SC_SUPPORT
#undef SC_VALUE

std::vector<cap_block> capabilities_of(const doca_devinfo *d)
{
    std::vector<cap_block> blocks;
    cap_block common{"common", "doca-common", {}};
    for (const flag_row &r : common_flags) {
        uint8_t flag = 0;
        cap_value v{r.name, true, r.fn(d, &flag), 0, r.query};
        if (v.status == DOCA_SUCCESS && flag == 0)
            v.status = DOCA_ERROR_NOT_SUPPORTED; // answered "no": printed as unsupported
        common.values.push_back(std::move(v));
    }
    blocks.push_back(std::move(common));

    cap_block comch{"comch", "doca-comch", {}};
    for (const support_row &r : comch_support)
        comch.values.push_back(support_value(r, d));
    add_numeric(comch, comch_numeric, d);
    blocks.push_back(std::move(comch));

    cap_block consumer{"comch_consumer", "doca-comch", {}};
    consumer.values.push_back(support_value({"is_supported", "doca_comch_consumer_cap_is_supported",
                                             doca_comch_consumer_cap_is_supported},
                                            d));
    add_numeric(consumer, consumer_numeric, d);
    blocks.push_back(std::move(consumer));

    cap_block producer{"comch_producer", "doca-comch", {}};
    producer.values.push_back(support_value({"is_supported", "doca_comch_producer_cap_is_supported",
                                             doca_comch_producer_cap_is_supported},
                                            d));
    add_numeric(producer, producer_numeric, d);
    blocks.push_back(std::move(producer));
    add_engines(blocks, d);
    return blocks;
}

std::string hex_bytes(const uint8_t *b, size_t n, char sep, size_t group)
{
    std::string out;
    char buf[4];
    for (size_t i = 0; i < n; ++i) {
        if (i != 0 && i % group == 0)
            out += sep;
        std::snprintf(buf, sizeof buf, "%02x", b[i]);
        out += buf;
    }
    return out;
}

std::string error_text(doca_error_t e)
{
    return e == DOCA_ERROR_NOT_SUPPORTED ? "unsupported" : doca_error_get_name(e);
}

// doca_caps' --list-devs rows that the public API answers.
std::vector<attribute> attributes_of(const doca_devinfo *d, std::string &ibdev, std::string &iface,
                                     std::string &kind)
{
    std::vector<attribute> out;
    char name[DOCA_DEVINFO_IFACE_NAME_SIZE] = {};
    doca_error_t rc = doca_devinfo_get_ibdev_name(d, name, DOCA_DEVINFO_IBDEV_NAME_SIZE);
    ibdev = rc == DOCA_SUCCESS ? name : "";
    out.push_back({"ibdev_name", rc == DOCA_SUCCESS ? ibdev : error_text(rc)});
    rc = doca_devinfo_get_iface_name(d, name, sizeof name);
    iface = rc == DOCA_SUCCESS ? name : "";
    out.push_back({"iface_name", rc == DOCA_SUCCESS ? iface : error_text(rc)});

    uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE] = {};
    rc = doca_devinfo_get_mac_addr(d, mac, sizeof mac);
    out.push_back(
        {"mac_addr", rc == DOCA_SUCCESS ? hex_bytes(mac, sizeof mac, ':', 1) : error_text(rc)});
    uint8_t ip4[DOCA_DEVINFO_IPV4_ADDR_SIZE] = {};
    rc = doca_devinfo_get_ipv4_addr(d, ip4, sizeof ip4);
    char ip4_text[20];
    std::snprintf(ip4_text, sizeof ip4_text, "%u.%u.%u.%u", ip4[0], ip4[1], ip4[2], ip4[3]);
    out.push_back({"ipv4_addr", rc == DOCA_SUCCESS ? ip4_text : error_text(rc)});
    uint8_t ip6[DOCA_DEVINFO_IPV6_ADDR_SIZE] = {};
    rc = doca_devinfo_get_ipv6_addr(d, ip6, sizeof ip6);
    out.push_back(
        {"ipv6_addr", rc == DOCA_SUCCESS ? hex_bytes(ip6, sizeof ip6, ':', 2) : error_text(rc)});

    doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_PF;
    rc = doca_devinfo_get_pci_func_type(d, &type);
    kind = rc == DOCA_SUCCESS ? kind_name(type) : "";
    out.push_back({"pci_func_type", rc == DOCA_SUCCESS ? kind : error_text(rc)});
    if (rc == DOCA_SUCCESS && type == DOCA_PCI_FUNC_TYPE_SF) {
        uint32_t sf = 0;
        rc = doca_devinfo_get_sf_index(d, &sf);
        out.push_back({"sf_index", rc == DOCA_SUCCESS ? std::to_string(sf) : error_text(rc)});
    }
    uint16_t vhca = 0;
    rc = doca_devinfo_get_vhca_id(d, &vhca);
    out.push_back({"vhca_id", rc == DOCA_SUCCESS ? std::to_string(vhca) : error_text(rc)});
    uint16_t lid = 0;
    rc = doca_devinfo_get_lid(d, &lid);
    out.push_back({"lid", rc == DOCA_SUCCESS ? std::to_string(lid) : error_text(rc)});
    uint64_t rate = 0;
    rc = doca_devinfo_get_active_rate(d, &rate);
    out.push_back({"active_rate", rc == DOCA_SUCCESS ? std::to_string(rate) : error_text(rc)});
    return out;
}

representor_record representor_of(const doca_devinfo_rep *r)
{
    representor_record rec;
    char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE] = {};
    doca_error_t rc = doca_devinfo_rep_get_pci_addr_str(r, pci);
    rec.pci = rc == DOCA_SUCCESS ? pci : "";
    char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = {};
    rc = doca_devinfo_rep_get_iface_name(r, iface, sizeof iface);
    rec.name = rc == DOCA_SUCCESS ? iface : "";
    rec.attributes.push_back({"iface_name", rc == DOCA_SUCCESS ? rec.name : error_text(rc)});
    rec.attributes.push_back({"pci_addr", rec.pci.empty() ? "?" : rec.pci});
    doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_PF;
    rc = doca_devinfo_rep_get_pci_func_type(r, &type);
    rec.kind = rc == DOCA_SUCCESS ? kind_name(type) : "";
    rec.attributes.push_back({"pci_func_type", rc == DOCA_SUCCESS ? rec.kind : error_text(rc)});
    char vuid[DOCA_DEVINFO_REP_VUID_SIZE] = {};
    rc = doca_devinfo_rep_get_vuid(r, vuid, sizeof vuid);
    rec.attributes.push_back({"vuid", rc == DOCA_SUCCESS ? vuid : error_text(rc)});
    uint16_t vhca = 0;
    rc = doca_devinfo_rep_get_vhca_id(r, &vhca);
    rec.attributes.push_back(
        {"vhca_id", rc == DOCA_SUCCESS ? std::to_string(vhca) : error_text(rc)});
    uint8_t hotplug = 0;
    rc = doca_devinfo_rep_get_is_hotplug(r, &hotplug);
    rec.attributes.push_back(
        {"hotplug", rc == DOCA_SUCCESS ? (hotplug ? "true" : "false") : error_text(rc)});
    return rec;
}

// The introspection view of the device the API listed, matched by address and names.
const introspect::device_info *match(const introspect::machine_info &m, const device_record &d)
{
    for (const auto &i : m.devices)
        if (i.pci == d.pci && i.ibdev == d.ibdev && i.iface == d.iface)
            return &i;
    return nullptr;
}

void join_introspection(const introspect::machine_info &m, device_record &d,
                        const introspect::device_info &i)
{
    d.side = i.side;
    d.bluefield = i.bluefield;
    d.function = i.function;
    for (const auto &bf : m.bluefields) {
        if (bf.id != i.bluefield)
            continue;
        d.bf_mode = bf.mode;
        d.representors_allowed = bf.representors_allowed;
        d.representors_refusal = bf.representors_refusal;
    }
}

// The representors of a device that manages some, through an opened handle as a program gets
// them.
void list_representors(doca_devinfo *info, device_record &d)
{
    doca_dev *dev = nullptr;
    doca_error_t rc = doca_dev_open(info, &dev);
    if (rc != DOCA_SUCCESS) {
        d.rep_status = rc;
        return;
    }
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    rc = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n);
    d.rep_status = rc;
    if (rc == DOCA_SUCCESS) {
        for (uint32_t i = 0; i < n; ++i)
            d.representors.push_back(representor_of(reps[i]));
        doca_devinfo_rep_destroy_list(reps);
    }
    doca_dev_close(dev);
}

} // namespace

std::string cap_value::text() const
{
    if (is_boolean)
        return status == DOCA_SUCCESS               ? "supported"
               : status == DOCA_ERROR_NOT_SUPPORTED ? "unsupported"
                                                    : doca_error_get_name(status);
    return status == DOCA_SUCCESS ? std::to_string(value) : error_text(status);
}

std::string host_kind(const introspect::machine_info &m)
{
    return m.side_filter == "dpu" ? "bluefield" : "host";
}

std::string contract_bf_mode(const std::string &mode)
{
    return mode == "nic" ? "smartnic" : mode;
}

const char *kind_name(int func_type) noexcept
{
    switch (func_type) {
    case DOCA_PCI_FUNC_TYPE_PF:
        return "PF";
    case DOCA_PCI_FUNC_TYPE_VF:
        return "VF";
    case DOCA_PCI_FUNC_TYPE_SF:
        return "SF";
    default:
        return "?";
    }
}

std::optional<std::string> canonical_pci(const std::string &text)
{
    // [dddd:]bb:dd.f, hex.
    std::string t = text.size() == 7 ? "0000:" + text : text;
    if (t.size() != 12 || t[4] != ':' || t[7] != ':' || t[10] != '.')
        return std::nullopt;
    for (size_t i = 0; i < t.size(); ++i) {
        if (i == 4 || i == 7 || i == 10)
            continue;
        if (!std::isxdigit(static_cast<unsigned char>(t[i])))
            return std::nullopt;
        t[i] = char(std::tolower(static_cast<unsigned char>(t[i])));
    }
    return t;
}

device_inventory take_inventory()
{
    device_inventory inv;
    inv.machine = introspect::machine();
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    inv.status = doca_devinfo_create_list(&list, &n);
    if (inv.status != DOCA_SUCCESS)
        return inv;
    for (uint32_t i = 0; i < n; ++i) {
        device_record d;
        char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = {};
        if (doca_devinfo_get_pci_addr_str(list[i], pci) == DOCA_SUCCESS)
            d.pci = pci;
        d.attributes = attributes_of(list[i], d.ibdev, d.iface, d.kind);
        d.caps = capabilities_of(list[i]);
        const introspect::device_info *view = match(inv.machine, d);
        if (view != nullptr) {
            join_introspection(inv.machine, d, *view);
            // Only DPU-side devices in DPU mode manage representors; asking a host device makes
            // the library log the refusal a program would get.
            if (!view->representors.empty())
                list_representors(list[i], d);
        }
        inv.devices.push_back(std::move(d));
    }
    doca_devinfo_destroy_list(list);
    return inv;
}

} // namespace softcomch::tools::inventory

// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_dev.h: argument checks and delegation only.
#include <doca_dev.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "core/device.hpp"

using namespace softcomch::capi;
namespace core = softcomch::core;

namespace {

// Copies a name into a caller buffer of `size` bytes, which must be at least `required`.
doca_error_t copy_name(const std::string &name, char *out, uint32_t size, uint32_t required,
                       const char *what)
{
    if (size < required)
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                  "%s: buffer of %u bytes is too small for the %s (need %u)", api_function(), size,
                  what, required);
    size_t n = std::min<size_t>(name.size(), size - 1);
    std::memcpy(out, name.data(), n);
    out[n] = '\0';
    return DOCA_SUCCESS;
}

template <size_t N>
doca_error_t copy_bytes(const std::array<uint8_t, N> &bytes, uint8_t *out, uint32_t size,
                        const char *what)
{
    if (size < N)
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                  "%s: buffer of %u bytes is too small for the %s (need %zu)", api_function(), size,
                  what, N);
    std::memcpy(out, bytes.data(), N);
    return DOCA_SUCCESS;
}

void write_pci(const std::string &canonical, char *out)
{
    // Always "dddd:bb:dd.f" (12 characters) plus the NUL: DOCA_DEVINFO_PCI_ADDR_SIZE bytes.
    std::memcpy(out, canonical.c_str(), DOCA_DEVINFO_PCI_ADDR_SIZE);
}

} // namespace

extern "C" {

// ---- lists, open, close ----

doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(dev_list);
        SC_CHECK_NOT_NULL(nb_devs);
        return core::devinfo_create_list(dev_list, nb_devs);
    });
}

doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(dev_list);
        return core::devinfo_destroy_list(dev_list);
    });
}

doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
                                          struct doca_devinfo_rep ***dev_list_rep,
                                          uint32_t *nb_devs_rep)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(dev_list_rep);
        SC_CHECK_NOT_NULL(nb_devs_rep);
        return core::devinfo_rep_create_list(dev, filter, dev_list_rep, nb_devs_rep);
    });
}

doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(dev_list_rep);
        return core::devinfo_rep_destroy_list(dev_list_rep);
    });
}

doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(dev);
        return core::dev_open(devinfo, dev);
    });
}

doca_error_t doca_dev_close(struct doca_dev *dev)
{
    return guard(__func__, [&]() -> doca_error_t {
        if (dev == nullptr) {
            // NVIDIA's DMA samples close the device again after destroy_core_objects closed it
            // and cleared the pointer, and fail on any error (docs/refusal_audit.md, row 10):
            // like free(NULL), nothing to do.
            SC_LOG_DBG("doca_dev_close: dev is NULL; nothing to close");
            return DOCA_SUCCESS;
        }
        return core::dev_close(dev); // refuses a handle that is not an open device
    });
}

doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        return DOCA_SUCCESS; // resources of destroyed objects are released at once
    });
}

doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(dev_rep);
        return core::dev_rep_open(devinfo, dev_rep);
    });
}

doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(dev);
        return core::dev_rep_close(dev); // also refuses a handle that is not open
    });
}

struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
    return guard_value<doca_devinfo *>(__func__, nullptr, [&]() -> doca_devinfo * {
        return usable(dev, "dev") ? dev->info() : nullptr;
    });
}

struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
    return guard_value<doca_devinfo_rep *>(__func__, nullptr, [&]() -> doca_devinfo_rep * {
        return usable(dev_rep, "dev_rep") ? dev_rep->info() : nullptr;
    });
}

// ---- device properties ----

doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(pci_addr_str);
        write_pci(devinfo->pci_addr(), pci_addr_str);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
                                            const char *pci_addr_str, uint8_t *is_equal)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(pci_addr_str);
        SC_CHECK_NOT_NULL(is_equal);
        return core::pci_addr_equal(api_function(), devinfo->pci_addr(), pci_addr_str, is_equal);
    });
}

doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
                                        uint32_t size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(ipv4_addr);
        return copy_bytes(devinfo->ipv4(), ipv4_addr, size, "IPv4 address");
    });
}

doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
                                        uint32_t size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(ipv6_addr);
        return copy_bytes(devinfo->ipv6(), ipv6_addr, size, "IPv6 address");
    });
}

doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
                                       uint32_t size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(mac_addr);
        return copy_bytes(devinfo->mac(), mac_addr, size, "MAC address");
    });
}

doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
                                         uint32_t size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(iface_name);
        return copy_name(devinfo->iface_name(), iface_name, size, DOCA_DEVINFO_IFACE_NAME_SIZE,
                         "interface name (DOCA_DEVINFO_IFACE_NAME_SIZE)");
    });
}

doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
                                         uint32_t size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(ibdev_name);
        return copy_name(devinfo->ibdev_name(), ibdev_name, size, DOCA_DEVINFO_IBDEV_NAME_SIZE,
                         "ibdev name (DOCA_DEVINFO_IBDEV_NAME_SIZE)");
    });
}

doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid)
{
    // Ethernet (RoCE) ports have no LID
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(lid), [](auto &) { return 0; });
}

doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo, uint64_t *active_rate)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(active_rate),
                    [](auto &o) { return o.active_rate(); });
}

doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(vhca_id),
                    [](auto &o) { return o.vhca_id(); });
}

doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
                                                           uint8_t *is_hotplug_manager)
{
    // no PCI device emulation
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(is_hotplug_manager),
                    [](auto &) { return 0; });
}

doca_error_t
doca_devinfo_cap_is_notification_moderation_supported(const struct doca_devinfo *devinfo,
                                                      uint8_t *is_notification_moderation_supported)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(is_notification_moderation_supported),
                    [](auto &) { return 1; });
}

doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
                                                          uint8_t *filter_all_supported)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(filter_all_supported),
                    [](auto &o) { return o.manages_representors() ? 1 : 0; });
}

doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
                                                          uint8_t *filter_net_supported)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(filter_net_supported),
                    [](auto &o) { return o.manages_representors() ? 1 : 0; });
}

doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *filter_emulated_supported)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(filter_emulated_supported),
                    [](auto &o) { return o.manages_representors() ? 1 : 0; });
}

doca_error_t
doca_devinfo_cap_is_accelerate_resource_reclaim_supported(const struct doca_devinfo *devinfo,
                                                          uint8_t *is_accelerate_resource_reclaim)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(is_accelerate_resource_reclaim),
                    [](auto &) { return 1; });
}

doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
                                            enum doca_pci_func_type *pci_func_type)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(pci_func_type),
                    [](auto &o) { return o.func_type(); });
}

doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(sf_index);
        if (devinfo->func_type() != DOCA_PCI_FUNC_TYPE_SF) {
            // A normal query while scanning devices, not a caller error: debug level.
            SC_LOG_DBG("%s: %s (%s) is not a sub-function", api_function(),
                       devinfo->pci_addr().c_str(), devinfo->ibdev_name().c_str());
            return DOCA_ERROR_NOT_SUPPORTED;
        }
        *sf_index = devinfo->sf_index();
        return DOCA_SUCCESS;
    });
}

// ---- representor properties ----

doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
                                       uint32_t size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo_rep);
        SC_CHECK_NOT_NULL(rep_vuid);
        return copy_name(devinfo_rep->vuid(), rep_vuid, size, DOCA_DEVINFO_REP_VUID_SIZE,
                         "VUID (DOCA_DEVINFO_REP_VUID_SIZE)");
    });
}

doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
                                               char *pci_addr_str)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo_rep);
        SC_CHECK_NOT_NULL(pci_addr_str);
        write_pci(devinfo_rep->pci_addr(), pci_addr_str);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
                                                enum doca_pci_func_type *pci_func_type)
{
    return get_into(__func__, SC_ARG(devinfo_rep), SC_ARG(pci_func_type),
                    [](auto &o) { return o.func_type(); });
}

doca_error_t doca_devinfo_rep_get_host_index(const struct doca_devinfo_rep *devinfo_rep,
                                             uint32_t *host_index)
{
    // One external host per BlueField: controller 1 (0 is the BlueField's own, docs/topology.md).
    return get_into(__func__, SC_ARG(devinfo_rep), SC_ARG(host_index),
                    [](auto &) { return uint32_t(1); });
}

doca_error_t doca_devinfo_rep_get_pf_index(const struct doca_devinfo_rep *devinfo_rep,
                                           uint32_t *pf_index)
{
    return get_into(__func__, SC_ARG(devinfo_rep), SC_ARG(pf_index),
                    [](auto &o) { return o.host_function()->pf_index(); });
}

namespace {

// The VF or SF number of a representor's function, NOT_SUPPORTED (at debug level: a normal
// query while scanning representors) for a function of another type.
doca_error_t rep_number(const char *func, const doca_devinfo_rep *rep, uint32_t *out,
                        doca_pci_func_type type)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(rep);
        SC_CHECK_NOT_NULL(out);
        const doca_devinfo &f = *rep->host_function();
        if (f.func_type() != type) {
            SC_LOG_DBG("%s: representor %s stands for %s, not a %s", api_function(),
                       rep->name().c_str(), f.pci_addr().c_str(),
                       type == DOCA_PCI_FUNC_TYPE_VF ? "VF" : "sub-function");
            return DOCA_ERROR_NOT_SUPPORTED;
        }
        *out = type == DOCA_PCI_FUNC_TYPE_VF ? f.vf_index() : f.sf_num();
        return DOCA_SUCCESS;
    });
}

} // namespace

doca_error_t doca_devinfo_rep_get_vf_index(const struct doca_devinfo_rep *devinfo_rep,
                                           uint32_t *vf_index)
{
    return rep_number(__func__, devinfo_rep, vf_index, DOCA_PCI_FUNC_TYPE_VF);
}

doca_error_t doca_devinfo_rep_get_sf_index(const struct doca_devinfo_rep *devinfo_rep,
                                           uint32_t *sf_index)
{
    return rep_number(__func__, devinfo_rep, sf_index, DOCA_PCI_FUNC_TYPE_SF);
}

doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
                                             uint8_t *is_hotplug)
{
    return get_into(__func__, SC_ARG(devinfo_rep), SC_ARG(is_hotplug), [](auto &) { return 0; });
}

doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep,
                                             char *iface_name, uint32_t size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo_rep);
        SC_CHECK_NOT_NULL(iface_name);
        return copy_name(devinfo_rep->iface_name(), iface_name, size, DOCA_DEVINFO_IFACE_NAME_SIZE,
                         "interface name (DOCA_DEVINFO_IFACE_NAME_SIZE)");
    });
}

doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep,
                                          uint16_t *vhca_id)
{
    return get_into(__func__, SC_ARG(devinfo_rep), SC_ARG(vhca_id),
                    [](auto &o) { return o.vhca_id(); });
}

doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
                                                const char *pci_addr_str, uint8_t *is_equal)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo_rep);
        SC_CHECK_NOT_NULL(pci_addr_str);
        SC_CHECK_NOT_NULL(is_equal);
        return core::pci_addr_equal(api_function(), devinfo_rep->pci_addr(), pci_addr_str,
                                    is_equal);
    });
}

} // extern "C"

/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_dev.h
 * @brief DOCA devices: enumerating the (emulated) BlueField PCI functions and their representors.
 *
 * Two kinds of objects describe hardware:
 * - a device (struct doca_devinfo, opened as struct doca_dev) is a PCI function this machine can
 *   use directly: on the host, a BlueField PF, VF or SF; on the BlueField Arm side (the "DPU"),
 *   the embedded functions (ECPFs) and their SFs;
 * - a representor (struct doca_devinfo_rep, opened as struct doca_dev_rep) exists only on the
 *   DPU side and stands for one host function (pf0hpf for host PF0, pf0vf0 for its VF0, ...).
 *   Its PCI address is the address of the host function it represents.
 *
 * In SoftComch the machine is described by the topology (docs/topology.md): the embedded default
 * (one BlueField-3 with host functions b1:00.0-2 and DPU devices 03:00.0-1) or the JSON file
 * named by SOFTCOMCH_TOPOLOGY. SOFTCOMCH_SIDE=host|dpu limits enumeration to one side.
 *
 * Lifetime: devinfo and devinfo_rep objects live as long as the process; the arrays returned by
 * the *_create_list functions must be released with the matching *_destroy_list function. An
 * opened device stays valid after its list is destroyed.
 *
 * PCI address strings: the functions taking one accept "BB:DD.F" (domain 0000 implied) and
 * "DDDD:BB:DD.F", hexadecimal, either case; the functions writing one produce the lowercase
 * "DDDD:BB:DD.F" form.
 *
 * Thread safety: enumeration, open and close may be called from any thread.
 */
#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_devinfo_rep;
struct doca_dev;
struct doca_dev_rep;

/** @brief Which representors doca_devinfo_rep_create_list() returns (a bit mask; ALL is 0). */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,           /**< every representor */
	DOCA_DEVINFO_REP_FILTER_NET = 1 << 1,      /**< network function representors (PF/VF/SF) */
	DOCA_DEVINFO_REP_FILTER_EMULATED = 1 << 2, /**< emulated PCI function representors */
};

/**
 * @brief Lists the devices this process can see.
 * @param [out] dev_list a new array of *nb_devs device pointers; release it with
 * doca_devinfo_destroy_list().
 * @param [out] nb_devs number of entries.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NO_MEMORY;
 * DOCA_ERROR_NOT_FOUND if no device is visible; DOCA_ERROR_INITIALIZATION if the emulated machine
 * could not be set up (an invalid SOFTCOMCH_TOPOLOGY file or SOFTCOMCH_SIDE value; the log says
 * why).
 */
DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);

/**
 * @brief Releases an array returned by doca_devinfo_create_list(). The devices it pointed to,
 * and devices opened from them, are not affected.
 * @param [in] dev_list the array.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a pointer that is not a live list.
 */
DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/**
 * @brief Lists the representors managed by an open device. Only the DPU-side PFs of a
 * BlueField in DPU mode manage representors.
 * @param [in] dev an open device.
 * @param [in] filter a bit mask of enum doca_devinfo_rep_filter (0 for all).
 * @param [out] dev_list_rep a new array of *nb_devs_rep pointers; release it with
 * doca_devinfo_rep_destroy_list().
 * @param [out] nb_devs_rep number of entries (may be 0).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or undefined filter bits;
 * DOCA_ERROR_NOT_SUPPORTED for a host-side device (representors exist only on the DPU side), a
 * DPU-side sub-function, or a BlueField in NIC mode; DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev,
						      int filter,
						      struct doca_devinfo_rep ***dev_list_rep,
						      uint32_t *nb_devs_rep);

/**
 * @brief Releases an array returned by doca_devinfo_rep_create_list().
 * @param [in] dev_list_rep the array.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a pointer that is not a live list.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);

/**
 * @brief Opens a device. Opening is reference counted: opening an already open device returns
 * the same handle, and each open needs one doca_dev_close().
 * @param [in] devinfo a device from doca_devinfo_create_list().
 * @param [out] dev the open device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an object that is not a
 * devinfo; DOCA_ERROR_NO_MEMORY; DOCA_ERROR_TOO_BIG if the device is already open UINT32_MAX
 * times.
 */
DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);

/**
 * @brief Drops one reference taken by doca_dev_open(); the last one closes the device.
 * @param [in] dev the device.
 * The last one closes the handle even while other objects (memory maps, representors, Comch
 * contexts) still use the device: they keep working, and the device is freed with the last of
 * them.
 * @return DOCA_SUCCESS (also for NULL: nothing to close); DOCA_ERROR_INVALID_VALUE for an object
 * that is not an open device.
 */
DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev);

/**
 * @brief Asks the device to release the resources of destroyed objects sooner. The emulated
 * device releases them at once, so this only checks its argument.
 * @param [in] dev an open device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not a device.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev);

/**
 * @brief Opens a representor. Reference counted like doca_dev_open(). The device whose list the
 * representor came from must still be open; it stays in use while the representor is open.
 * @param [in] devinfo a representor from doca_devinfo_rep_create_list().
 * @param [out] dev_rep the open representor.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an object that is not a
 * representor; DOCA_ERROR_NOT_PERMITTED when the topology's privilege policy reserves
 * representors to root or a group this process is not in (as on a BlueField where an unprivileged
 * user may not open representors); DOCA_ERROR_BAD_STATE if the managing device is not open;
 * DOCA_ERROR_NO_MEMORY; DOCA_ERROR_TOO_BIG if already open UINT32_MAX times.
 */
DOCA_STABLE doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);

/**
 * @brief Drops one reference taken by doca_dev_rep_open(); the last one closes the representor.
 * @param [in] dev the representor.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not an open
 * representor; DOCA_ERROR_IN_USE when this is the last reference and a Comch server still uses
 * it.
 */
DOCA_STABLE doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

/**
 * @brief The device description of an open device (for the *_cap_* queries).
 * @param [in] dev an open device.
 * @return the devinfo, or NULL for NULL or an object that is not an open device.
 */
DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/**
 * @brief The description of an open representor.
 * @param [in] dev_rep an open representor.
 * @return the devinfo_rep, or NULL for NULL or an object that is not an open representor.
 */
DOCA_STABLE struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/** @brief Buffer size for doca_devinfo_get_vuid-style identifiers, NUL included. */
#define DOCA_DEVINFO_VUID_SIZE 128
/** @brief Buffer size for doca_devinfo_get_ipv4_addr(). */
#define DOCA_DEVINFO_IPV4_ADDR_SIZE 4
/** @brief Buffer size for doca_devinfo_get_ipv6_addr(). */
#define DOCA_DEVINFO_IPV6_ADDR_SIZE 16
/** @brief Buffer size for doca_devinfo_get_mac_addr(). */
#define DOCA_DEVINFO_MAC_ADDR_SIZE 6
/** @brief Buffer size for interface names, NUL included. */
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
/** @brief Buffer size for doca_devinfo_get_ibdev_name(), NUL included. */
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
/** @brief Buffer size for a "DDDD:BB:DD.F" PCI address, NUL included. */
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13
/** @brief Buffer size for a "BB:DD.F" PCI address, NUL included. */
#define DOCA_DEVINFO_PCI_BDF_SIZE 8

/**
 * @brief Writes the device's PCI address as "dddd:bb:dd.f" (lowercase, NUL-terminated).
 * @param [in] devinfo the device.
 * @param [out] pci_addr_str at least DOCA_DEVINFO_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);

/**
 * @brief Compares the device's PCI address with a string.
 * @param [in] devinfo the device.
 * @param [in] pci_addr_str "BB:DD.F" or "DDDD:BB:DD.F" (hexadecimal, any case).
 * @param [out] is_equal 1 when it names this device's function, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a malformed address.
 */
DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
							const char *pci_addr_str,
							uint8_t *is_equal);

/**
 * @brief The device's IPv4 address in network byte order (0.0.0.0 unless the topology sets one).
 * @param [in] devinfo the device.
 * @param [out] ipv4_addr receives DOCA_DEVINFO_IPV4_ADDR_SIZE bytes.
 * @param [in] size size of @p ipv4_addr; at least DOCA_DEVINFO_IPV4_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a small buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo,
						    uint8_t *ipv4_addr,
						    uint32_t size);

/**
 * @brief The device's IPv6 address in network byte order (link-local, derived from the MAC).
 * @param [in] devinfo the device.
 * @param [out] ipv6_addr receives DOCA_DEVINFO_IPV6_ADDR_SIZE bytes.
 * @param [in] size size of @p ipv6_addr; at least DOCA_DEVINFO_IPV6_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a small buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo,
						    uint8_t *ipv6_addr,
						    uint32_t size);

/**
 * @brief The device's MAC address.
 * @param [in] devinfo the device.
 * @param [out] mac_addr receives DOCA_DEVINFO_MAC_ADDR_SIZE bytes.
 * @param [in] size size of @p mac_addr; at least DOCA_DEVINFO_MAC_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a small buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo,
						   uint8_t *mac_addr,
						   uint32_t size);

/**
 * @brief The name of the device's network interface (e.g. "ens1f0np0" on the host, "p0" on the
 * DPU side), NUL-terminated.
 * @param [in] devinfo the device.
 * @param [out] iface_name the buffer.
 * @param [in] size size of @p iface_name; at least DOCA_DEVINFO_IFACE_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a small buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo,
						     char *iface_name,
						     uint32_t size);

/**
 * @brief The device's InfiniBand device name (e.g. "mlx5_0"), NUL-terminated.
 * @param [in] devinfo the device.
 * @param [out] ibdev_name the buffer.
 * @param [in] size size of @p ibdev_name; at least DOCA_DEVINFO_IBDEV_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a small buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo,
						     char *ibdev_name,
						     uint32_t size);

/**
 * @brief The port's InfiniBand local identifier. Emulated ports are Ethernet (RoCE): 0.
 * @param [in] devinfo the device.
 * @param [out] lid the LID.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid);

/**
 * @brief The port's active link rate in bits per second (from the device model).
 * @param [in] devinfo the device.
 * @param [out] active_rate the rate.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo, uint64_t *active_rate);

/**
 * @brief The function's vHCA identifier (unique within its BlueField).
 * @param [in] devinfo the device.
 * @param [out] vhca_id the identifier.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id);

/**
 * @brief Whether the device can hot-plug emulated PCI functions. The emulator models no PCI
 * device emulation: always 0.
 * @param [in] devinfo the device.
 * @param [out] is_hotplug_manager 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
								       uint8_t *is_hotplug_manager);

/**
 * @brief Whether progress engines on this device support notification moderation (1).
 * @param [in] devinfo the device.
 * @param [out] is_notification_moderation_supported 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_cap_is_notification_moderation_supported(
	const struct doca_devinfo *devinfo, uint8_t *is_notification_moderation_supported);

/**
 * @brief Whether doca_devinfo_rep_create_list() accepts DOCA_DEVINFO_REP_FILTER_ALL on this
 * device: 1 on DPU-side devices of a BlueField in DPU mode, else 0.
 * @param [in] devinfo the device.
 * @param [out] filter_all_supported 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_all_supported);

/**
 * @brief Whether doca_devinfo_rep_create_list() accepts DOCA_DEVINFO_REP_FILTER_NET on this
 * device: 1 on DPU-side devices of a BlueField in DPU mode, else 0.
 * @param [in] devinfo the device.
 * @param [out] filter_net_supported 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_net_supported);

/**
 * @brief Whether doca_devinfo_rep_create_list() accepts DOCA_DEVINFO_REP_FILTER_EMULATED on this
 * device: 1 on DPU-side devices of a BlueField in DPU mode (the emulator has no emulated
 * functions, so such a list is empty), else 0.
 * @param [in] devinfo the device.
 * @param [out] filter_emulated_supported 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
									   uint8_t *filter_emulated_supported);

/**
 * @brief Whether doca_dev_accelerate_resource_reclaim() is supported (1).
 * @param [in] devinfo the device.
 * @param [out] is_accelerate_resource_reclaim 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_cap_is_accelerate_resource_reclaim_supported(
	const struct doca_devinfo *devinfo, uint8_t *is_accelerate_resource_reclaim);

/**
 * @brief The kind of PCI function the device is.
 * @param [in] devinfo the device.
 * @param [out] pci_func_type DOCA_PCI_FUNC_TYPE_PF, _VF or _SF.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							enum doca_pci_func_type *pci_func_type);

/**
 * @brief The index of a sub-function device (N of the auxiliary device mlx5_core.sf.N). An SF
 * shares the PCI address of its parent PF; this index tells SFs apart.
 * @param [in] devinfo the device.
 * @param [out] sf_index the index.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device is not a sub-function.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index);

/** @brief Buffer size for doca_devinfo_rep_get_vuid(), NUL included. */
#define DOCA_DEVINFO_REP_VUID_SIZE 128
/** @brief Buffer size for a representor's "DDDD:BB:DD.F" PCI address, NUL included. */
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13
/** @brief Buffer size for a representor's "BB:DD.F" PCI address, NUL included. */
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE 8

/**
 * @brief The representor's vendor unique identifier, NUL-terminated.
 * @param [in] devinfo_rep the representor.
 * @param [out] rep_vuid the buffer.
 * @param [in] size size of @p rep_vuid; at least DOCA_DEVINFO_REP_VUID_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a small buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep,
						   char *rep_vuid,
						   uint32_t size);

/**
 * @brief Writes the PCI address of the host function the representor stands for, as
 * "dddd:bb:dd.f" (lowercase, NUL-terminated).
 * @param [in] devinfo_rep the representor.
 * @param [out] pci_addr_str at least DOCA_DEVINFO_REP_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
							   char *pci_addr_str);

/**
 * @brief The kind of host function the representor stands for.
 * @param [in] devinfo_rep the representor.
 * @param [out] pci_func_type DOCA_PCI_FUNC_TYPE_PF, _VF or _SF.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
							    enum doca_pci_func_type *pci_func_type);

/**
 * @brief Which host controller the representor's function belongs to (DOCA 3.1).
 * @param [in] devinfo_rep the representor.
 * @param [out] host_index 1 for the functions of the (one) external host; 0 is the BlueField's
 * own controller, whose functions have no representor.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_host_index(const struct doca_devinfo_rep *devinfo_rep,
							 uint32_t *host_index);

/**
 * @brief The PF (port) index of the representor's function (DOCA 3.1).
 * @param [in] devinfo_rep the representor.
 * @param [out] pf_index the index: 0 for pf0hpf and its VFs and SFs, 1 for pf1hpf...
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pf_index(const struct doca_devinfo_rep *devinfo_rep, uint32_t *pf_index);

/**
 * @brief The VF number of the representor's function (DOCA 3.1).
 * @param [in] devinfo_rep the representor.
 * @param [out] vf_index the number (pf0vf<N>).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the function is not a VF.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_vf_index(const struct doca_devinfo_rep *devinfo_rep, uint32_t *vf_index);

/**
 * @brief The SF number of the representor's function (DOCA 3.1), as in its name pf0sf<N>.
 * @param [in] devinfo_rep the representor.
 * @param [out] sf_index the number.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the function is not a sub-function.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_sf_index(const struct doca_devinfo_rep *devinfo_rep, uint32_t *sf_index);

/**
 * @brief Whether the represented function was hot-plugged (never, in the emulator: 0).
 * @param [in] devinfo_rep the representor.
 * @param [out] is_hotplug 1 if hot-plugged, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
							 uint8_t *is_hotplug);

/**
 * @brief The representor's network interface name (e.g. "pf0hpf"), NUL-terminated.
 * @param [in] devinfo_rep the representor.
 * @param [out] iface_name the buffer.
 * @param [in] size size of @p iface_name; at least DOCA_DEVINFO_IFACE_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a small buffer.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep,
							       char *iface_name,
							       uint32_t size);

/**
 * @brief The vHCA identifier of the represented host function.
 * @param [in] devinfo_rep the representor.
 * @param [out] vhca_id the identifier.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep,
							    uint16_t *vhca_id);

/**
 * @brief Compares the PCI address of the represented host function with a string.
 * @param [in] devinfo_rep the representor.
 * @param [in] pci_addr_str "BB:DD.F" or "DDDD:BB:DD.F" (hexadecimal, any case).
 * @param [out] is_equal 1 when it names the represented function, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a malformed address.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
							    const char *pci_addr_str,
							    uint8_t *is_equal);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */

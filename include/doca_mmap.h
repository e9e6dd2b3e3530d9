/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_mmap.h
 * @brief DOCA memory maps: a memory range registered with devices, from which doca_bufs are taken.
 *
 * Life cycle:
 *   doca_mmap_create()                    created, not started
 *   doca_mmap_set_memrange()              exactly once
 *   doca_mmap_add_dev(), _set_permissions(), _set_user_data(), _set_max_num_devices(),
 *   _set_free_cb(), _enable_thread_safety()   any number of times, before start
 *   doca_mmap_start()                     bufs may now be taken from it (doca_buf_inventory.h)
 *   doca_mmap_stop()                      optional; allowed once no buf refers to the mmap
 *   doca_mmap_destroy()                   stops if needed; then calls the free callback
 *
 * Exporting a map to the other side of the PCIe link: doca_mmap_export_pci() gives a descriptor
 * of at most 512 bytes that the program carries to the other side itself (a file, a Comch
 * message); doca_mmap_create_from_export() there, in another process, builds a map of that
 * memory with a device of the other side of the same BlueField, without any help from the
 * exporting process (which may be blocked). The imported map's addresses are the exporter's: bufs
 * on it are used by DMA tasks (doca_dma.h) only, within the access the export granted
 * (DOCA_ACCESS_FLAG_PCI_READ_ONLY or _PCI_READ_WRITE). Destroying the exported map revokes the
 * export: DMA tasks on the imported map then fail with DOCA_ERROR_NOT_PERMITTED. SoftComch reaches
 * the exporter's memory with process_vm_readv/writev: both processes run as the same user.
 *
 * Thread safety: one thread at a time per map, unless doca_mmap_enable_thread_safety() was
 * called before start (then bufs may be taken from and returned to it from several threads).
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_devinfo;
struct doca_mmap;
struct doca_dpa;

/** @brief A memory map's handle on a DPA (no DPA is emulated). */
typedef uint32_t doca_dpa_dev_mmap_t;

/**
 * @brief Releases a map's memory range; called by doca_mmap_destroy() (note: a function type,
 * not a pointer type).
 * @param [in] addr the start of the range.
 * @param [in] len its length.
 * @param [in] cookie the value given to doca_mmap_set_free_cb().
 */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *cookie);

/**
 * @brief Creates an empty, unstarted memory map.
 * @param [out] mmap the new map.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);

/**
 * @brief Destroys a memory map, stopping it first if needed. If the map was started and a free
 * callback is set, the callback is called with the memory range.
 * @param [in] mmap the map.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not a map;
 * DOCA_ERROR_NOT_PERMITTED while a doca_buf still refers to the map or a Comch consumer created
 * on it still exists.
 */
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);

/**
 * @brief Starts a memory map: its configuration is frozen and bufs may be taken from it.
 * @param [in] mmap the map.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not a map;
 * DOCA_ERROR_BAD_STATE if it is already started or no memory range was set.
 */
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);

/**
 * @brief Stops a started memory map. A stopped map may be reconfigured (except its memory range,
 * which is set once) and started again.
 * @param [in] mmap the map.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not a map;
 * DOCA_ERROR_BAD_STATE if it is not started; DOCA_ERROR_NOT_PERMITTED while a doca_buf still
 * refers to the map or a Comch consumer created on it still exists, or if the map was exported or
 * created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);

/**
 * @brief Registers the map with a device. The device stays in use (doca_dev_close() refuses
 * with DOCA_ERROR_IN_USE) until it is removed or the map is destroyed.
 * @param [in] mmap the map (not started).
 * @param [in] dev an open device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or objects of the wrong kind;
 * DOCA_ERROR_NOT_PERMITTED if the map is started, exported or created from an export;
 * DOCA_ERROR_ALREADY_EXIST if the device is already registered; DOCA_ERROR_NO_MEMORY if the
 * map already holds its maximum number of devices (doca_mmap_set_max_num_devices()).
 */
DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * @brief Removes a device registered with doca_mmap_add_dev().
 * @param [in] mmap the map (not started).
 * @param [in] dev the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or objects of the wrong kind;
 * DOCA_ERROR_NOT_PERMITTED if the map is started, exported or created from an export;
 * DOCA_ERROR_NOT_FOUND if the device is not registered with the map.
 */
DOCA_STABLE doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * @brief Produces a descriptor that lets the other side of the PCIe link map this memory.
 * @param [in] mmap a started map with a PCI access permission.
 * @param [in] dev a device registered with the map.
 * @param [out] export_desc the descriptor (owned by the map, valid until it is destroyed; the
 * same one for the same device again).
 * @param [out] export_desc_len its length (at most 512).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or objects of the wrong kind;
 * DOCA_ERROR_BAD_STATE if the map is not started; DOCA_ERROR_NOT_PERMITTED if the map lacks a PCI
 * permission or is itself created from an export; DOCA_ERROR_NOT_FOUND if @p dev is not
 * registered with the map; DOCA_ERROR_NO_MEMORY when the process has 4096 exports already.
 */
DOCA_STABLE doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap,
					      const struct doca_dev *dev,
					      const void **export_desc,
					      size_t *export_desc_len);

/**
 * @brief Produces a descriptor for RDMA access to this memory. RDMA is not emulated.
 * @param [in] mmap a started map.
 * @param [in] dev a device registered with the map.
 * @param [out] export_desc the descriptor.
 * @param [out] export_desc_len its length.
 * @return DOCA_ERROR_INVALID_VALUE for NULL arguments or objects of the wrong kind; otherwise
 * DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_STABLE doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap,
					       const struct doca_dev *dev,
					       const void **export_desc,
					       size_t *export_desc_len);

/**
 * @brief The map's handle for DPA kernels. No DPA is emulated.
 * @param [in] mmap the map.
 * @param [in] dev the device.
 * @param [out] dpa_mmap_handle the handle.
 * @return DOCA_ERROR_INVALID_VALUE for NULL arguments; otherwise DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap,
							    const struct doca_dev *dev,
							    doca_dpa_dev_mmap_t *dpa_mmap_handle);

/**
 * @brief Builds a map of memory exported by the peer with doca_mmap_export_pci().
 * @param [in] user_data value for doca_mmap_get_user_data(), or NULL.
 * @param [in] export_desc the peer's descriptor.
 * @param [in] export_desc_len its length.
 * @param [in] dev the local device: of the same BlueField as the exporting one, on the other side.
 * @param [out] mmap the new map (already started, not reconfigurable; its range is the
 * exporter's addresses).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments, a zero length, a @p dev that
 * is not a device, or bytes that are not a descriptor; DOCA_ERROR_NOT_PERMITTED for a device of
 * another BlueField or of the exporter's own side, a revoked export, or no access to the exporting
 * process (another user); DOCA_ERROR_NOT_FOUND once the exporting process has exited.
 */
DOCA_STABLE doca_error_t doca_mmap_create_from_export(const union doca_data *user_data,
						      const void *export_desc,
						      size_t export_desc_len,
						      struct doca_dev *dev,
						      struct doca_mmap **mmap);

/**
 * @brief Sets the memory range the map covers. Allowed once per map.
 * @param [in] mmap the map (not started).
 * @param [in] addr the start (not NULL).
 * @param [in] len the length (not 0; addr + len must not wrap around).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, a zero length or a range that wraps;
 * DOCA_ERROR_BAD_STATE if the map is started; DOCA_ERROR_NOT_PERMITTED if the range was already
 * set.
 */
DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);

/**
 * @brief Sets the memory range from a dma-buf. dma-bufs are not emulated.
 * @param [in] mmap the map.
 * @param [in] dmabuf_fd the dma-buf descriptor.
 * @param [in] addr the start of the range in this process.
 * @param [in] dmabuf_offset offset into the dma-buf.
 * @param [in] len the length.
 * @return DOCA_ERROR_INVALID_VALUE for a NULL or wrong-kind map; otherwise
 * DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_STABLE doca_error_t
doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr, size_t dmabuf_offset, size_t len);

/**
 * @brief Sets the memory range from DPA memory. No DPA is emulated.
 * @param [in] mmap the map.
 * @param [in] dpa the DPA.
 * @param [in] dpa_addr the start in DPA memory.
 * @param [in] len the length.
 * @return DOCA_ERROR_INVALID_VALUE for a NULL or wrong-kind map; otherwise
 * DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap,
							  struct doca_dpa *dpa,
							  uint64_t dpa_addr,
							  size_t len);

/**
 * @brief Reads the memory range.
 * @param [in] mmap the map.
 * @param [out] addr the start.
 * @param [out] len the length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if no
 * range was set.
 */
DOCA_STABLE doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len);

/**
 * @brief Sets the callback doca_mmap_destroy() uses to release the memory range (it is called
 * only if the map was started).
 * @param [in] mmap the map (not started).
 * @param [in] free_cb the callback (not NULL).
 * @param [in] opaque the cookie passed to it.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if the
 * map is started.
 */
DOCA_STABLE doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap,
					       doca_mmap_memrange_free_cb_t *free_cb,
					       void *opaque);

/**
 * @brief Reads the user data (zero if never set).
 * @param [in] mmap the map.
 * @param [out] user_data the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data);

/**
 * @brief How many devices the map may hold (16 unless set).
 * @param [in] mmap the map.
 * @param [out] max_num_devices the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices);

/**
 * @brief How many doca_bufs currently refer to the map.
 * @param [in] mmap the map.
 * @param [out] num_bufs the number.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs);

/**
 * @brief Whether the map was exported (doca_mmap_export_pci() or _rdma()).
 * @param [in] mmap the map.
 * @param [out] exported 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported);

/**
 * @brief Whether the map was created by doca_mmap_create_from_export().
 * @param [in] mmap the map.
 * @param [out] from_export 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export);

/**
 * @brief Sets how many devices the map may hold.
 * @param [in] mmap the map (not started).
 * @param [in] max_num_devices the limit; not 0 and not below the number already registered.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an invalid limit;
 * DOCA_ERROR_NOT_PERMITTED if the map is started, exported or created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);

/**
 * @brief Sets the access rights: an OR of enum doca_access_flag (default
 * DOCA_ACCESS_FLAG_LOCAL_READ_WRITE). Local read access is always granted.
 * @param [in] mmap the map (not started).
 * @param [in] access_mask the rights.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, undefined bits, or both
 * DOCA_ACCESS_FLAG_PCI_READ_ONLY and DOCA_ACCESS_FLAG_PCI_READ_WRITE; DOCA_ERROR_BAD_STATE if the
 * map is started.
 */
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);

/**
 * @brief Sets the user data.
 * @param [in] mmap the map (not started).
 * @param [in] user_data the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE if the map is
 * started.
 */
DOCA_STABLE doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);

/**
 * @brief Whether maps on this device can be exported with doca_mmap_export_pci(): 1 on every
 * function of the emulated machine.
 * @param [in] devinfo the device.
 * @param [out] mmap_export 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
							       uint8_t *mmap_export);

/**
 * @brief Whether doca_mmap_create_from_export() works for PCI exports on this device: 1 on
 * every function of the emulated machine.
 * @param [in] devinfo the device.
 * @param [out] from_export 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
									   uint8_t *from_export);

/**
 * @brief Makes taking bufs from and returning bufs to this map safe from several threads.
 * @param [in] mmap the map (not started).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE if the map is
 * started.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * For the C programs of tests/programs: opening the emulated devices by PCI address
 * through the public API only, as a C program of any DOCA era does (the C++ programs use
 * tests/support/device_lookup.hpp).
 */
#ifndef SC_C_DEVICES_H_
#define SC_C_DEVICES_H_

#include <doca_dev.h>
#include <doca_error.h>

#include <stddef.h>
#include <stdint.h>

/* The device at `pci` ("03:00.0", "b1:00.0"), or NULL. */
static inline struct doca_dev *sc_open_dev(const char *pci)
{
    struct doca_devinfo **list = NULL;
    uint32_t n = 0;
    struct doca_dev *dev = NULL;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
        return NULL;
    for (uint32_t i = 0; i < n && dev == NULL; i++) {
        uint8_t eq = 0;
        if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            if (doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
                dev = NULL;
    }
    doca_devinfo_destroy_list(list);
    return dev;
}

/* The network representor of `dev` for host function `pci`, or NULL. */
static inline struct doca_dev_rep *sc_open_rep(struct doca_dev *dev, const char *pci)
{
    struct doca_devinfo_rep **list = NULL;
    uint32_t n = 0;
    struct doca_dev_rep *rep = NULL;
    if (doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n) != DOCA_SUCCESS)
        return NULL;
    for (uint32_t i = 0; i < n && rep == NULL; i++) {
        uint8_t eq = 0;
        if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            if (doca_dev_rep_open(list[i], &rep) != DOCA_SUCCESS)
                rep = NULL;
    }
    doca_devinfo_rep_destroy_list(list);
    return rep;
}

#endif /* SC_C_DEVICES_H_ */

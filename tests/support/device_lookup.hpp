// SPDX-License-Identifier: Apache-2.0
//
// Opening the emulated devices by PCI address through the public API only: for the tests, the
// benchmarks and the pattern programs alike (no gtest, no internals).
#pragma once

#include <doca_dev.h>
#include <doca_error.h>

#include <cstdint>

namespace sc_devices {

// The device at `pci` ("03:00.0", "b1:00.0"), or nullptr.
inline doca_dev *open_dev(const char *pci)
{
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
        return nullptr;
    doca_dev *dev = nullptr;
    for (uint32_t i = 0; i < n && !dev; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            if (doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
                dev = nullptr;
    }
    doca_devinfo_destroy_list(list);
    return dev;
}

// The network representor of `dev` for host function `pci`, or nullptr.
inline doca_dev_rep *open_rep(doca_dev *dev, const char *pci)
{
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    if (doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n) != DOCA_SUCCESS)
        return nullptr;
    doca_dev_rep *rep = nullptr;
    for (uint32_t i = 0; i < n && !rep; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            if (doca_dev_rep_open(list[i], &rep) != DOCA_SUCCESS)
                rep = nullptr;
    }
    doca_devinfo_rep_destroy_list(list);
    return rep;
}

} // namespace sc_devices

// SPDX-License-Identifier: Apache-2.0
//
// For the benchmarks that go through the public DOCA API: open the emulated devices of the
// default topology by PCI address, and stop at the first failing call.
#pragma once

#include <doca_dev.h>
#include <doca_error.h>

#include <cstdio>
#include <cstdlib>

namespace softcomch::bench {

[[noreturn]] inline void die(const char *prog, const char *what, doca_error_t rc)
{
    std::fprintf(stderr, "%s: %s: %s\n", prog, what, doca_error_get_name(rc));
    std::exit(1);
}

// The device at `pci` ("03:00.0", "b1:00.0"), or nullptr.
inline doca_dev *open_dev(const char *pci)
{
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    doca_dev *dev = nullptr;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
        return nullptr;
    for (uint32_t i = 0; i < n && !dev; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            doca_dev_open(list[i], &dev);
    }
    doca_devinfo_destroy_list(list);
    return dev;
}

// The network representor of `dev` for host function `pci`, or nullptr.
inline doca_dev_rep *open_rep(doca_dev *dev, const char *pci)
{
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    doca_dev_rep *rep = nullptr;
    if (doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n) != DOCA_SUCCESS)
        return nullptr;
    for (uint32_t i = 0; i < n && !rep; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            doca_dev_rep_open(list[i], &rep);
    }
    doca_devinfo_rep_destroy_list(list);
    return rep;
}

} // namespace softcomch::bench

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Built by install_check.cmake against an installed SoftComch, with nothing but
 * `pkg-config --cflags --libs doca-comch doca-argp doca-dma`, once per flavour. Prints what the
 * script checks: the flavour the headers were configured for, the libraries actually loaded
 * (they must be the installed ones), and a few capabilities of this side's device.
 * Exit status 0 only if every call behaved.
 */
#define _GNU_SOURCE
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_version.h>

DOCA_LOG_REGISTER(ABI::INSTALL_SMOKE);

#if defined(DOCA_ARCH_DPU) && !defined(DOCA_ARCH_HOST)
#define SMOKE_FLAVOUR "dpu"
#define SMOKE_PCI "03:00.0"
#elif defined(DOCA_ARCH_HOST) && !defined(DOCA_ARCH_DPU)
#define SMOKE_FLAVOUR "host"
#define SMOKE_PCI "b1:00.0"
#else
#error "doca_build_config.h must define exactly one of DOCA_ARCH_HOST and DOCA_ARCH_DPU"
#endif

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "install_smoke: check failed at line %d: %s\n", __LINE__, #cond);      \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int report_library(const char *key, void *symbol)
{
    Dl_info info;

    memset(&info, 0, sizeof(info));
    if (dladdr(symbol, &info) == 0 || info.dli_fname == NULL)
        return 1;
    printf("%s=%s\n", key, info.dli_fname);
    return 0;
}

int main(void)
{
    struct doca_devinfo **list = NULL;
    struct doca_dev *dev = NULL;
    uint32_t n = 0, i, max_msg = 0, max_name = 0;

    printf("flavour=%s\n", SMOKE_FLAVOUR);
    printf("version=%s runtime=%s\n", doca_version(), doca_version_runtime());
    CHECK(strcmp(doca_version(), doca_version_runtime()) == 0);
    CHECK(strcmp(doca_error_get_name(DOCA_ERROR_IN_PROGRESS), "DOCA_ERROR_IN_PROGRESS") == 0);

    CHECK(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS);
    for (i = 0; i < n && dev == NULL; ++i) {
        uint8_t eq = 0;
        CHECK(doca_devinfo_is_equal_pci_addr(list[i], SMOKE_PCI, &eq) == DOCA_SUCCESS);
        if (eq)
            CHECK(doca_dev_open(list[i], &dev) == DOCA_SUCCESS);
    }
    CHECK(doca_devinfo_destroy_list(list) == DOCA_SUCCESS);
    CHECK(dev != NULL);

    CHECK(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &max_msg) == DOCA_SUCCESS);
    CHECK(doca_comch_cap_get_max_name_len(doca_dev_as_devinfo(dev), &max_name) == DOCA_SUCCESS);
    CHECK(max_msg > 0 && max_name > 1);
    CHECK(doca_comch_cap_get_max_msg_size(NULL, &max_msg) == DOCA_ERROR_INVALID_VALUE);
    printf("max_msg_size=%u max_name_len=%u\n", max_msg, max_name);
    {
        uint64_t max_buf = 0;

        CHECK(doca_dma_cap_task_memcpy_is_supported(doca_dev_as_devinfo(dev)) == DOCA_SUCCESS);
        CHECK(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &max_buf) ==
              DOCA_SUCCESS);
        CHECK(max_buf > 0);
        printf("dma_max_buf_size=%llu\n", (unsigned long long)max_buf);
    }

#ifdef DOCA_ARCH_DPU
    {
        struct doca_devinfo_rep **reps = NULL;
        uint32_t nreps = 0, found = 0;

        CHECK(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(dev)) == DOCA_SUCCESS);
        CHECK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nreps) ==
              DOCA_SUCCESS);
        for (i = 0; i < nreps; ++i) {
            uint8_t eq = 0;
            CHECK(doca_devinfo_rep_is_equal_pci_addr(reps[i], "b1:00.0", &eq) == DOCA_SUCCESS);
            found += eq;
        }
        CHECK(doca_devinfo_rep_destroy_list(reps) == DOCA_SUCCESS);
        CHECK(found == 1);
        printf("server_supported=1 representors=%u\n", nreps);
    }
#else
    CHECK(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(dev)) == DOCA_SUCCESS);
    printf("client_supported=1\n");
#endif

    CHECK(doca_argp_init("install_smoke", NULL) == DOCA_SUCCESS);
    CHECK(doca_argp_destroy() == DOCA_SUCCESS);
    CHECK(doca_dev_close(dev) == DOCA_SUCCESS);

    CHECK(report_library("comch_lib", (void *)doca_comch_cap_get_max_msg_size) == 0);
    CHECK(report_library("argp_lib", (void *)doca_argp_init) == 0);
    CHECK(report_library("common_lib", (void *)doca_devinfo_create_list) == 0);
    CHECK(report_library("dma_lib", (void *)doca_dma_create) == 0);
    DOCA_LOG_DBG("install smoke test done");
    return 0;
}

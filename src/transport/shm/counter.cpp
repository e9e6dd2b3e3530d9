// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/counter.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "common/unique_fd.hpp"
#include "transport/shm/export_identity.hpp"
#include "transport/shm/peer_checks.hpp"
#include "transport/shm/shm.hpp"

namespace softcomch::transport::shm {

namespace {

class counter_exported final : public transport::counter_export {
public:
    counter_exported(unique_fd fd, counter_page *page, uint64_t token, uint64_t start_time) noexcept
        : transport::counter_export(traits::ops()), fd_(std::move(fd)), page_(page), token_(token),
          start_time_(start_time)
    {}
    ~counter_exported() override
    {
        // Revoked: importers' alive() reads 0 from now on. Their mappings keep the page (the
        // file lives as long as one maps it); their accesses touch only that.
        page_->token.store(0, std::memory_order_seq_cst);
        ::munmap(page_, k_counter_page_size);
    }

    std::atomic<uint64_t> &word() noexcept override { return page_->value; }

    size_t pack(uint8_t *out, size_t cap) const noexcept override
    {
        if (cap < sizeof(counter_desc))
            return 0;
        counter_desc d{};
        d.magic = k_counter_magic;
        d.version = k_counter_version;
        d.pid = uint32_t(::getpid());
        d.fd = uint32_t(fd_.get());
        d.start_time = start_time_;
        d.token = token_;
        std::memcpy(out, &d, sizeof d);
        return sizeof d;
    }

private:
    unique_fd fd_; // open while the export lives: importers take it with pidfd_getfd
    counter_page *page_;
    uint64_t token_;
    uint64_t start_time_;
};

class counter_imported final : public transport::counter_import {
public:
    counter_imported(const counter_desc &d, unique_fd pidfd, counter_page *page) noexcept
        : transport::counter_import(traits::ops()), pid_(pid_t(d.pid)), token_(d.token),
          pidfd_(std::move(pidfd)), page_(page)
    {}
    ~counter_imported() override { ::munmap(page_, k_counter_page_size); }

    std::atomic<uint64_t> &word() noexcept override { return page_->value; }

    doca_error_t alive(const char **why) const noexcept override
    {
        if (!peer_running(pidfd_.get())) {
            *why = "the exporting process has exited";
            return DOCA_ERROR_NOT_FOUND;
        }
        if (page_->token.load(std::memory_order_seq_cst) != token_) {
            *why = "the export was revoked (the exporting event was destroyed)";
            return DOCA_ERROR_NOT_PERMITTED;
        }
        return DOCA_SUCCESS;
    }

    std::string exporter() const override { return "pid " + std::to_string(pid_); }

private:
    pid_t pid_;
    uint64_t token_;
    unique_fd pidfd_;
    counter_page *page_;
};

} // namespace

doca_error_t export_counter(std::unique_ptr<transport::counter_export> &out, std::string &why)
{
    unique_fd fd;
    void *base = nullptr;
    if (doca_error_t rc =
            create_mapped_memfd("softcomch-sync-event", k_counter_page_size, true, true, fd, &base);
        rc != DOCA_SUCCESS) {
        why = "cannot create the shared page of the counter";
        return rc;
    }
    auto *page = new (base) counter_page{};
    page->magic = k_counter_page_magic;
    page->version = k_counter_page_version;
    const uint64_t token = random_token();
    page->token.store(token, std::memory_order_relaxed);
    page->value.store(0, std::memory_order_relaxed);
    // Importers take our descriptor with pidfd_getfd: under Yama ptrace_scope=1 that needs our
    // consent, as process_vm_readv does.
    grant_importers_access();
    out = std::make_unique<counter_exported>(std::move(fd), page, token, own_start_time());
    return DOCA_SUCCESS;
}

doca_error_t parse_counter_desc(const uint8_t *desc, size_t len, counter_desc &out,
                                const char **why)
{
    if (desc == nullptr || len != sizeof(counter_desc)) {
        *why = "the descriptor has the wrong length";
        return DOCA_ERROR_INVALID_VALUE;
    }
    counter_desc d;
    std::memcpy(&d, desc, sizeof d);
    if (d.magic != k_counter_magic || d.version != k_counter_version || d.reserved != 0) {
        *why = "the descriptor is not a counter export of this transport (or of another version)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (d.pid == 0 || d.pid > k_max_pid) {
        *why = "the descriptor names no valid process";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (d.fd > uint32_t(INT32_MAX) || d.token == 0) {
        *why = "the descriptor's file or token is invalid";
        return DOCA_ERROR_INVALID_VALUE;
    }
    out = d;
    return DOCA_SUCCESS;
}

doca_error_t import_counter(const uint8_t *desc, size_t len,
                            std::unique_ptr<transport::counter_import> &out, std::string &why)
{
    const char *reason = nullptr;
    counter_desc d;
    if (doca_error_t rc = parse_counter_desc(desc, len, d, &reason); rc != DOCA_SUCCESS) {
        why = reason;
        return rc;
    }
    unique_fd pidfd;
    if (doca_error_t rc = open_exporter(d.pid, d.start_time, pidfd, why); rc != DOCA_SUCCESS)
        return rc;
    unique_fd fd;
    if (doca_error_t rc =
            take_exporter_fd(pidfd.get(), d.fd,
                             "the export was revoked (the exporting event was destroyed)", fd, why);
        rc != DOCA_SUCCESS)
        return rc;
    // Whatever file now has that number in the exporter: a sealed memfd of one page, or nothing.
    void *base = nullptr;
    if (map_peer_memfd(fd.get(), k_counter_page_size, false, &base) != DOCA_SUCCESS) {
        why = "the export was revoked (the exporter's file is not the counter's any more)";
        return DOCA_ERROR_NOT_PERMITTED;
    }
    auto *page = static_cast<counter_page *>(base);
    if (page->magic != k_counter_page_magic || page->version != k_counter_page_version ||
        page->token.load(std::memory_order_seq_cst) != d.token) {
        ::munmap(base, k_counter_page_size);
        why = "the export was revoked (the exporting event was destroyed)";
        return DOCA_ERROR_NOT_PERMITTED;
    }
    out = std::make_unique<counter_imported>(d, std::move(pidfd), page);
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm

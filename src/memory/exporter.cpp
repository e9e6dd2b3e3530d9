// SPDX-License-Identifier: Apache-2.0
#include "memory/exporter.hpp"

#include <atomic>
#include <type_traits>

#include "common/visibility.hpp"
#include "memory/live_figures.hpp"
#include "transport/registry.hpp"
#include "transport/transport.hpp"

namespace softcomch::memory {

namespace {

namespace tp = softcomch::transport;

class kept final : public core::export_handle {
public:
    kept(std::unique_ptr<tp::region_export> e, const core::resource_label &label, void *addr,
         size_t len) noexcept
        : e_(std::move(e)), shown_(live::k_res_export, "mmap", label,
                                   uint64_t(reinterpret_cast<uintptr_t>(addr)), len, "")
    {}

private:
    std::unique_ptr<tp::region_export> e_; // destroyed: revoked
    resource_publication shown_;
};

class remote final : public core::remote_memory {
public:
    remote(std::unique_ptr<tp::region_import> i, const core::resource_label &label)
        : i_(std::move(i)),
          shown_(live::k_res_import, "mmap", label, i_->base(), i_->len(), i_->exporter())
    {}
    doca_error_t read(uint64_t addr, void *dst, size_t n, const char **why) noexcept override
    {
        const doca_error_t rc = i_->read(addr, dst, n, why);
        if (rc == DOCA_SUCCESS)
            shown_.moved(n);
        return rc;
    }
    doca_error_t write(uint64_t addr, const void *src, size_t n, const char **why) noexcept override
    {
        const doca_error_t rc = i_->write(addr, src, n, why);
        if (rc == DOCA_SUCCESS)
            shown_.moved(n);
        return rc;
    }
    doca_error_t alive(const char **why) const noexcept override { return i_->alive(why); }
    std::string exporter() const override { return i_->exporter(); }

private:
    std::unique_ptr<tp::region_import> i_;
    resource_publication shown_;
};

// A counter on the word of a transport's counter export (the exporter's own) or import (another
// process's); destroying the export revokes it.
template <class T> class word_counter final : public core::shared_counter {
    static constexpr bool k_imported = std::is_same_v<T, tp::counter_import>;

public:
    word_counter(std::unique_ptr<T> h, const core::resource_label &label, const std::string &peer)
        : h_(std::move(h)), w_(h_->word()),
          shown_(k_imported ? live::k_res_import : live::k_res_export, "sync_event", label,
                 uint64_t(reinterpret_cast<uintptr_t>(&w_)), sizeof(uint64_t), peer)
    {}
    uint64_t load() const noexcept override { return w_.load(std::memory_order_seq_cst); }
    void store(uint64_t v) noexcept override { w_.store(v, std::memory_order_seq_cst); }
    uint64_t fetch_add(uint64_t v) noexcept override
    {
        return w_.fetch_add(v, std::memory_order_seq_cst);
    }
    doca_error_t alive(const char **why) const noexcept override
    {
        if constexpr (k_imported)
            return h_->alive(why);
        (void)why;
        return DOCA_SUCCESS;
    }
    std::string exporter() const override
    {
        if constexpr (k_imported)
            return h_->exporter();
        return "this process";
    }

private:
    std::unique_ptr<T> h_;
    std::atomic<uint64_t> &w_;
    resource_publication shown_;
};

class transport_exporter final : public core::memory_exporter {
public:
    const char *name() const noexcept override
    {
        const tp::transport_ops *ops = nullptr;
        std::string why;
        return tp::select_transport(ops, why) == DOCA_SUCCESS ? ops->name : "";
    }

    doca_error_t export_range(void *addr, size_t len, bool writable,
                              const core::resource_label &label, std::vector<uint8_t> &desc,
                              std::unique_ptr<core::export_handle> &keep, std::string &why) override
    {
        const tp::transport_ops *ops = nullptr;
        if (doca_error_t rc = tp::select_transport(ops, why); rc != DOCA_SUCCESS)
            return rc;
        std::unique_ptr<tp::region_export> e;
        if (doca_error_t rc = ops->export_region(addr, len, writable, e, why); rc != DOCA_SUCCESS)
            return rc;
        uint8_t bytes[tp::k_region_desc_max];
        const size_t n = e->pack(bytes, sizeof bytes);
        if (n == 0) {
            why = "the transport's descriptor does not fit";
            return DOCA_ERROR_UNEXPECTED;
        }
        desc.assign(bytes, bytes + n);
        keep = std::make_unique<kept>(std::move(e), label, addr, len);
        return DOCA_SUCCESS;
    }

    doca_error_t import_range(std::string_view via, const uint8_t *desc, size_t len,
                              const core::resource_label &label,
                              std::unique_ptr<core::remote_memory> &out, std::string &why) override
    {
        const tp::transport_ops *ops = tp::find_transport(via);
        if (ops == nullptr) {
            why = "the descriptor names a transport this build does not have";
            return DOCA_ERROR_NOT_SUPPORTED;
        }
        std::unique_ptr<tp::region_import> i;
        if (doca_error_t rc = ops->import_region(desc, len, i, why); rc != DOCA_SUCCESS)
            return rc;
        out = std::make_unique<remote>(std::move(i), label);
        return DOCA_SUCCESS;
    }

    doca_error_t export_counter(const core::resource_label &label,
                                std::unique_ptr<core::shared_counter> &counter,
                                std::vector<uint8_t> &desc, std::string &why) override
    {
        const tp::transport_ops *ops = nullptr;
        if (doca_error_t rc = tp::select_transport(ops, why); rc != DOCA_SUCCESS)
            return rc;
        std::unique_ptr<tp::counter_export> e;
        if (doca_error_t rc = ops->export_counter(e, why); rc != DOCA_SUCCESS)
            return rc;
        uint8_t bytes[tp::k_counter_desc_max];
        const size_t n = e->pack(bytes, sizeof bytes);
        if (n == 0) {
            why = "the transport's descriptor does not fit";
            return DOCA_ERROR_UNEXPECTED;
        }
        desc.assign(bytes, bytes + n);
        counter = std::make_unique<word_counter<tp::counter_export>>(std::move(e), label, "");
        return DOCA_SUCCESS;
    }

    doca_error_t import_counter(std::string_view via, const uint8_t *desc, size_t len,
                                const core::resource_label &label,
                                std::unique_ptr<core::shared_counter> &out,
                                std::string &why) override
    {
        const tp::transport_ops *ops = tp::find_transport(via);
        if (ops == nullptr) {
            why = "the descriptor names a transport this build does not have";
            return DOCA_ERROR_NOT_SUPPORTED;
        }
        std::unique_ptr<tp::counter_import> i;
        if (doca_error_t rc = ops->import_counter(desc, len, i, why); rc != DOCA_SUCCESS)
            return rc;
        const std::string peer = i->exporter();
        out = std::make_unique<word_counter<tp::counter_import>>(std::move(i), label, peer);
        return DOCA_SUCCESS;
    }
};

} // namespace

core::memory_exporter &exporter() noexcept
{
    static transport_exporter the_exporter;
    return the_exporter;
}

} // namespace softcomch::memory

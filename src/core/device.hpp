// SPDX-License-Identifier: Apache-2.0
//
// Emulated DOCA devices. `struct doca_devinfo` / `struct doca_devinfo_rep` describe one PCI
// function / one representor of the emulated machine; they are built and owned by the topology
// (topology.hpp) and live until the process ends. `struct doca_dev` / `struct doca_dev_rep` are
// their open handles: reference counted per function (opening twice returns the same handle),
// and "held" by the objects that use them (mmaps, representors, Comch contexts) so that the last
// close of a device still in use fails with DOCA_ERROR_IN_USE.
//
// Thread safety: open/close/list operations take one process-wide lock; the descriptive
// accessors read immutable data and are safe from any thread.
#pragma once

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/object_tag.hpp"
#include "common/visibility.hpp"

namespace softcomch::core {

// Which side of the PCIe link a function belongs to.
enum class side : uint8_t { host, dpu };
SOFTCOMCH_API const char *side_name(side s) noexcept; // "host" / "dpu"

// How a BlueField is configured (docs/topology.md): "dpu" is the normal ECPF mode; in "nic" mode
// the Arm side runs nothing, so there are no representors and Comch has no server (and hence no
// client either).
enum class bf_mode : uint8_t { dpu, nic };
SOFTCOMCH_API const char *bf_mode_name(bf_mode m) noexcept; // "dpu" / "nic"

// Comch capability values of a BlueField. Only max_msg_size (4080) is a published figure; the
// rest are emulator defaults (docs/topology.md). Overridable per BlueField in the topology file.
struct comch_caps {
    uint32_t max_msg_size = 4080;
    uint32_t max_name_len = 120; // including the terminating NUL
    uint32_t max_recv_queue_size = 8192;
    uint32_t default_recv_queue_size = 16;
    uint32_t max_clients = 1024;
    uint32_t max_send_tasks = 16384;
    uint32_t consumer_max_num_tasks = 8192;
    uint32_t consumer_max_buf_size = 1u << 30;
    uint32_t consumer_max_buf_list_len = 1;
    uint32_t max_consumers = 512;
    uint32_t max_imm_data_len = 32;
    uint32_t producer_max_num_tasks = 8192;
    uint32_t producer_max_buf_size = 1u << 30;
    uint32_t producer_max_buf_list_len = 1;
    uint32_t max_producers = 512;

    friend bool operator==(const comch_caps &, const comch_caps &) = default;
};

// DMA capability values of a BlueField's functions (every function, both sides, supports memcpy).
// No hardware figure is published: emulator defaults (docs/topology.md), overridable per
// BlueField in the topology file ("dma_caps").
struct dma_caps {
    uint64_t max_buf_size = uint64_t(1) << 31; // bytes one memcpy task may copy
    uint64_t max_buf_list_len = 16;            // elements of a source or destination list
    uint64_t max_num_tasks = 8192;             // memcpy tasks of one context

    friend bool operator==(const dma_caps &, const dma_caps &) = default;
};

// The accelerators of a BlueField model beside DMA (docs/topology.md, "model"): NVIDIA's
// Compress and SHA guides list deflate compression and SHA on BlueField-2 only, LZ4 decompression
// on BlueField-3 only, deflate decompression on both.
struct engine_caps {
    bool compress_deflate = false;
    bool decompress_deflate = true;
    bool decompress_lz4 = true;
    bool sha = false;

    static engine_caps of_model(const std::string &model) noexcept
    {
        engine_caps e;
        if (model == "BlueField-2") {
            e.compress_deflate = true;
            e.decompress_lz4 = false;
            e.sha = true;
        }
        return e;
    }
};

// Who may open representors (doca_dev_rep_open). Root is always allowed.
struct privilege_policy {
    enum class rule : uint8_t { anyone, root, group };
    rule rule_ = rule::anyone;
    std::string group_;  // rule::group: the group whose members may open representors
    std::string origin_; // where the policy was defined (for messages), e.g. "/etc/topo.json"
};

// The identity a privilege check is made for.
struct credentials {
    uint32_t euid = 0;
    uint32_t egid = 0;
    std::vector<uint32_t> groups;               // supplementary groups
    SOFTCOMCH_API static credentials current(); // of this process (or the test override)
};

// True if `who` may open representors under `policy`; otherwise false and *why explains.
SOFTCOMCH_API bool privilege_allows(const privilege_policy &policy, const credentials &who,
                                    std::string *why);
// Tests only: make credentials::current() return `c` (nullptr restores the real identity).
void set_credentials_override(const credentials *c);

// One emulated BlueField (shared by all its functions and representors).
struct bluefield {
    std::string id_;    // "bf0"
    std::string model_; // "BlueField-3"
    bf_mode mode_ = bf_mode::dpu;
    comch_caps caps_;
    dma_caps dma_;
    privilege_policy privilege_;
    std::string serial_; // base of the VUIDs
    uint64_t port_rate_bps_ = 0;
    uint32_t index_ = 0; // position in the topology
};

// Everything that describes one PCI function (built by the topology).
struct function_desc {
    side side_ = side::host;
    std::string pci_; // canonical "dddd:bb:dd.f"
    doca_pci_func_type type_ = DOCA_PCI_FUNC_TYPE_PF;
    uint32_t pf_ = 0;       // port (PF index) the function belongs to
    uint32_t vf_ = 0;       // VF number (type VF)
    uint32_t sf_num_ = 0;   // SF number (type SF), as in "pf0sf<N>"
    uint32_t sf_index_ = 0; // auxiliary device index (type SF), as in "mlx5_core.sf.<N>"
    std::string ibdev_;
    std::string iface_;
    std::string vuid_;
    std::array<uint8_t, 6> mac_{};
    std::array<uint8_t, 4> ipv4_{};
    uint16_t vhca_id_ = 0;
};

// Everything that describes one representor (built by the topology).
struct representor_desc {
    std::string name_; // "pf0hpf"; also its interface name
    std::string iface_;
};

// Parses "BB:DD.F" or "DDDD:BB:DD.F" (hex, any case; device <= 0x1f, function <= 7; nothing else
// before or after) into the canonical lowercase "dddd:bb:dd.f". Returns false if malformed
// (`out` is then unchanged).
SOFTCOMCH_API bool canonical_pci_addr(const char *in, std::string &out) noexcept;

} // namespace softcomch::core

struct doca_devinfo_rep;

struct doca_devinfo {
    doca_devinfo(const softcomch::core::bluefield *board, softcomch::core::function_desc desc);
    ~doca_devinfo();
    doca_devinfo(const doca_devinfo &) = delete;
    doca_devinfo &operator=(const doca_devinfo &) = delete;

    softcomch::object_tag tag_{softcomch::object_kind::devinfo};

    const std::string &pci_addr() const noexcept { return d_.pci_; }
    softcomch::core::side side() const noexcept { return d_.side_; }
    const std::string &bluefield_id() const noexcept { return board_->id_; }
    const softcomch::core::bluefield &board() const noexcept { return *board_; }
    const softcomch::core::comch_caps &comch() const noexcept { return board_->caps_; }
    const softcomch::core::dma_caps &dma() const noexcept { return board_->dma_; }
    softcomch::core::engine_caps engines() const noexcept
    {
        return softcomch::core::engine_caps::of_model(board_->model_);
    }
    // A Comch server runs on DPU-side devices of a BlueField in DPU mode; a client on host-side
    // devices of a BlueField in DPU mode.
    SOFTCOMCH_API bool server_capable() const noexcept;
    SOFTCOMCH_API bool client_capable() const noexcept;
    // Whether this device manages representors (DPU-side PF of a BlueField in DPU mode).
    SOFTCOMCH_API bool manages_representors() const noexcept;

    const std::string &ibdev_name() const noexcept { return d_.ibdev_; }
    const std::string &iface_name() const noexcept { return d_.iface_; }
    const std::string &vuid() const noexcept { return d_.vuid_; }
    doca_pci_func_type func_type() const noexcept { return d_.type_; }
    uint32_t pf_index() const noexcept { return d_.pf_; }
    uint32_t vf_index() const noexcept { return d_.vf_; }
    uint32_t sf_num() const noexcept { return d_.sf_num_; }
    uint32_t sf_index() const noexcept { return d_.sf_index_; }
    const std::array<uint8_t, 6> &mac() const noexcept { return d_.mac_; }
    const std::array<uint8_t, 4> &ipv4() const noexcept { return d_.ipv4_; }
    SOFTCOMCH_API std::array<uint8_t, 16> ipv6() const noexcept; // fe80::/64 + EUI-64 of the MAC
    uint16_t vhca_id() const noexcept { return d_.vhca_id_; }
    uint64_t active_rate() const noexcept { return board_->port_rate_bps_; }
    const softcomch::core::function_desc &desc() const noexcept { return d_; }

    // A key naming this PCI function uniquely in the topology, identical in every process that
    // loads the same topology: "<bluefield>/<side>/<pci>" plus "/sf<N>" for sub-functions, e.g.
    // "bf0/host/0000:b1:00.0". A representor's function_id() is that of the function it
    // represents, so a server's representor and a client's device can be matched by it.
    const std::string &function_id() const noexcept { return function_id_; }

    // The representors this device manages (empty unless manages_representors()).
    const std::vector<doca_devinfo_rep *> &representors() const noexcept { return reps_; }

    // The open handle, or nullptr (reads under the device lock's protection are the caller's job;
    // meant for diagnostics).
    doca_dev *open_handle() const noexcept { return open_; }

    // ---- used by the topology while building ----
    void add_representor(doca_devinfo_rep *r) { reps_.push_back(r); }

private:
    friend struct softcomch_device_access;
    const softcomch::core::bluefield *board_;
    softcomch::core::function_desc d_;
    std::string function_id_;
    std::vector<doca_devinfo_rep *> reps_;
    doca_dev *open_ = nullptr;
};

struct doca_devinfo_rep {
    doca_devinfo_rep(const softcomch::core::bluefield *board,
                     softcomch::core::representor_desc desc, doca_devinfo *manager,
                     doca_devinfo *represented);
    ~doca_devinfo_rep();
    doca_devinfo_rep(const doca_devinfo_rep &) = delete;
    doca_devinfo_rep &operator=(const doca_devinfo_rep &) = delete;

    softcomch::object_tag tag_{softcomch::object_kind::devinfo_rep};

    // PCI address of the host function represented (canonical form).
    const std::string &pci_addr() const noexcept { return represented_->pci_addr(); }
    const std::string &name() const noexcept { return d_.name_; } // "pf0hpf"
    const std::string &iface_name() const noexcept { return d_.iface_; }
    const std::string &bluefield_id() const noexcept { return board_->id_; }
    const softcomch::core::bluefield &board() const noexcept { return *board_; }
    doca_pci_func_type func_type() const noexcept { return represented_->func_type(); }
    const std::string &vuid() const noexcept { return represented_->vuid(); }
    uint16_t vhca_id() const noexcept { return represented_->vhca_id(); }
    // Same key as host_function()->function_id().
    const std::string &function_id() const noexcept { return represented_->function_id(); }
    // The DPU-side device that manages this representor.
    doca_devinfo *manager() const noexcept { return manager_; }
    // The host function this representor stands for.
    doca_devinfo *host_function() const noexcept { return represented_; }

    doca_dev_rep *open_handle() const noexcept { return open_; }

private:
    friend struct softcomch_device_access;
    const softcomch::core::bluefield *board_;
    softcomch::core::representor_desc d_;
    doca_devinfo *manager_;
    doca_devinfo *represented_;
    doca_dev_rep *open_ = nullptr;
};

struct doca_dev {
    softcomch::object_tag tag_{softcomch::object_kind::dev};

    doca_devinfo *info() const noexcept { return info_; }
    uint32_t open_count() const noexcept { return opens_; }

    // Objects that use the device (mmaps, representors, Comch contexts) hold it: hold() when they
    // take it, release() when they let go. The last doca_dev_close() of a held device closes the
    // handle at once (the program may not use it any more) and leaves the object to its last
    // holder's release(), which frees it: NVIDIA's applications close a device before the
    // representors and memory maps that use it.
    void hold() noexcept { holders_.fetch_add(1, std::memory_order_acq_rel); }
    void release() noexcept;
    uint32_t holders() const noexcept { return holders_.load(std::memory_order_acquire); }

private:
    friend struct softcomch_device_access;
    explicit doca_dev(doca_devinfo *info) noexcept : info_(info) {}
    ~doca_dev() = default;
    // Frees the object once it is both closed and unheld; whichever of dev_close() and release()
    // sees that state first does it, exactly once.
    void free_if_unused() noexcept;
    doca_devinfo *info_;
    uint32_t opens_ = 0;
    std::atomic<uint32_t> holders_{0};
    std::atomic<bool> closed_{false}; // the last doca_dev_close() happened
    std::atomic<bool> freed_{false};  // the free is taken (by close or by the last release)
};

struct doca_dev_rep {
    softcomch::object_tag tag_{softcomch::object_kind::dev_rep};

    doca_devinfo_rep *info() const noexcept { return info_; }
    // The open DPU-side device managing this representor (held while the representor is open).
    doca_dev *parent() const noexcept { return parent_; }
    uint32_t open_count() const noexcept { return opens_; }

    // As doca_dev::hold/release: a Comch server holds its representor.
    void hold() noexcept { holders_.fetch_add(1, std::memory_order_relaxed); }
    void release() noexcept { holders_.fetch_sub(1, std::memory_order_relaxed); }
    uint32_t holders() const noexcept { return holders_.load(std::memory_order_relaxed); }

private:
    friend struct softcomch_device_access;
    doca_dev_rep(doca_devinfo_rep *info, doca_dev *parent) noexcept : info_(info), parent_(parent)
    {}
    ~doca_dev_rep() = default;
    doca_devinfo_rep *info_;
    doca_dev *parent_;
    uint32_t opens_ = 0;
    std::atomic<uint32_t> holders_{0};
};

namespace softcomch::core {

// The operations behind doca_dev.h. Arguments are non-NULL and correctly tagged (checked by the
// C API); these check the rest, log the reason of a refusal, and write outputs only on success.
SOFTCOMCH_API doca_error_t devinfo_create_list(doca_devinfo ***list, uint32_t *count);
SOFTCOMCH_API doca_error_t devinfo_destroy_list(doca_devinfo **list);
SOFTCOMCH_API doca_error_t devinfo_rep_create_list(doca_dev *dev, int filter,
                                                   doca_devinfo_rep ***list, uint32_t *count);
SOFTCOMCH_API doca_error_t devinfo_rep_destroy_list(doca_devinfo_rep **list);
SOFTCOMCH_API doca_error_t dev_open(doca_devinfo *info, doca_dev **dev);
SOFTCOMCH_API doca_error_t dev_close(doca_dev *dev);
SOFTCOMCH_API doca_error_t dev_rep_open(doca_devinfo_rep *info, doca_dev_rep **rep);
SOFTCOMCH_API doca_error_t dev_rep_close(doca_dev_rep *rep);

// True if `dev` is a currently open device handle (its tag alone cannot tell a freed handle
// whose memory was reused).
SOFTCOMCH_API bool is_open_device(const doca_dev *dev) noexcept;
SOFTCOMCH_API bool is_open_representor(const doca_dev_rep *rep) noexcept;

// Compares a PCI address string with a canonical address. INVALID_VALUE (logged, naming
// `func`, at debug level) when `in` is malformed.
SOFTCOMCH_API doca_error_t pci_addr_equal(const char *func, const std::string &canonical,
                                          const char *in, uint8_t *is_equal);

} // namespace softcomch::core

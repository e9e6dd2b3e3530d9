// SPDX-License-Identifier: Apache-2.0
#include "core/device.hpp"

#include <grp.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_set>

#include "common/hex.hpp"
#include "common/log.hpp"
#include "core/topology.hpp"

using softcomch::core::side;

// Befriended by the device classes: the only code that creates, links and frees open handles.
struct softcomch_device_access {
    static doca_dev *&open_of(doca_devinfo *i) noexcept { return i->open_; }
    static doca_dev_rep *&open_of(doca_devinfo_rep *i) noexcept { return i->open_; }
    static uint32_t &opens_of(doca_dev *d) noexcept { return d->opens_; }
    static uint32_t &opens_of(doca_dev_rep *d) noexcept { return d->opens_; }
    static doca_dev *make(doca_devinfo *i) { return new doca_dev(i); }
    static doca_dev_rep *make(doca_devinfo_rep *i, doca_dev *parent)
    {
        return new doca_dev_rep(i, parent);
    }
    static void destroy(doca_dev *d) noexcept { delete d; }
    static void close(doca_dev *d) noexcept
    {
        d->closed_.store(true, std::memory_order_seq_cst);
        d->free_if_unused();
    }
    static void destroy(doca_dev_rep *d) noexcept { delete d; }
};

namespace softcomch::core {

const char *side_name(side s) noexcept
{
    return s == side::host ? "host" : "dpu";
}

const char *bf_mode_name(bf_mode m) noexcept
{
    return m == bf_mode::dpu ? "dpu" : "nic";
}

// ------------------------------------------------------------------------------------------------
// PCI addresses
// ------------------------------------------------------------------------------------------------

bool canonical_pci_addr(const char *in, std::string &out) noexcept
{
    if (!in)
        return false;
    size_t len = ::strnlen(in, 16);
    const char *bdf;
    long domain = 0;
    if (len == 12) { // DDDD:BB:DD.F
        domain = hex_field(in, 4);
        if (domain < 0 || in[4] != ':')
            return false;
        bdf = in + 5;
    } else if (len == 7) { // BB:DD.F
        bdf = in;
    } else {
        return false;
    }
    long bus = hex_field(bdf, 2);
    long dev = hex_field(bdf + 3, 2);
    long fn = hex_field(bdf + 6, 1);
    if (bus < 0 || bdf[2] != ':' || dev < 0 || dev > 0x1f || bdf[5] != '.' || fn < 0 || fn > 7)
        return false;
    static const char hex[] = "0123456789abcdef";
    char buf[DOCA_DEVINFO_PCI_ADDR_SIZE] = {hex[(domain >> 12) & 0xf],
                                            hex[(domain >> 8) & 0xf],
                                            hex[(domain >> 4) & 0xf],
                                            hex[domain & 0xf],
                                            ':',
                                            hex[bus >> 4],
                                            hex[bus & 0xf],
                                            ':',
                                            hex[dev >> 4],
                                            hex[dev & 0xf],
                                            '.',
                                            hex[fn],
                                            '\0'};
    try {
        out.assign(buf);
    } catch (...) {
        return false;
    }
    return true;
}

doca_error_t pci_addr_equal(const char *func, const std::string &canonical, const char *in,
                            uint8_t *is_equal)
{
    std::string parsed;
    if (!canonical_pci_addr(in, parsed)) {
        // Debug level: NVIDIA's device lookups (applications/storage, dpu_gpu_remote_offload) try
        // every user identifier of PCI length as an address first and fall back to names; the
        // refusal is the answer they expect, not a mistake worth an error line per device.
        SC_LOG_DBG("%s: malformed PCI address \"%.24s\" (expected \"BB:DD.F\" or \"DDDD:BB:DD.F\", "
                   "hexadecimal)",
                   func, in);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *is_equal = parsed == canonical ? 1 : 0;
    return DOCA_SUCCESS;
}

// ------------------------------------------------------------------------------------------------
// privilege policy
// ------------------------------------------------------------------------------------------------

namespace {
std::mutex g_cred_mu;
bool g_cred_override_set = false;
credentials g_cred_override;
} // namespace

credentials credentials::current()
{
    {
        std::lock_guard<std::mutex> lock(g_cred_mu);
        if (g_cred_override_set)
            return g_cred_override;
    }
    credentials c;
    c.euid = ::geteuid();
    c.egid = ::getegid();
    int n = ::getgroups(0, nullptr);
    if (n > 0) {
        std::vector<gid_t> g(static_cast<size_t>(n));
        n = ::getgroups(n, g.data());
        for (int i = 0; i < n; ++i)
            c.groups.push_back(g[static_cast<size_t>(i)]);
    }
    return c;
}

void set_credentials_override(const credentials *c)
{
    std::lock_guard<std::mutex> lock(g_cred_mu);
    g_cred_override_set = c != nullptr;
    if (c)
        g_cred_override = *c;
}

bool privilege_allows(const privilege_policy &policy, const credentials &who, std::string *why)
{
    using rule = privilege_policy::rule;
    if (policy.rule_ == rule::anyone || who.euid == 0)
        return true;
    if (policy.rule_ == rule::root) {
        if (why)
            *why = "the privilege policy of " + policy.origin_ + " reserves representors to root";
        return false;
    }
    // rule::group
    std::vector<char> buf(16384);
    struct group gr;
    struct group *found = nullptr;
    int rc = ::getgrnam_r(policy.group_.c_str(), &gr, buf.data(), buf.size(), &found);
    if (rc != 0 || !found) {
        if (why)
            *why = "the privilege policy of " + policy.origin_ +
                   " reserves representors to root and group \"" + policy.group_ +
                   "\", which does not exist on this machine";
        return false;
    }
    const uint32_t gid = found->gr_gid;
    if (who.egid == gid)
        return true;
    for (uint32_t g : who.groups)
        if (g == gid)
            return true;
    if (why)
        *why = "the privilege policy of " + policy.origin_ +
               " reserves representors to root and members of group \"" + policy.group_ +
               "\" (this process is not a member)";
    return false;
}

} // namespace softcomch::core

// ------------------------------------------------------------------------------------------------
// devinfo / devinfo_rep
// ------------------------------------------------------------------------------------------------

doca_devinfo::doca_devinfo(const softcomch::core::bluefield *board,
                           softcomch::core::function_desc desc)
    : board_(board), d_(std::move(desc))
{
    function_id_ = board_->id_ + "/" + softcomch::core::side_name(d_.side_) + "/" + d_.pci_;
    if (d_.type_ == DOCA_PCI_FUNC_TYPE_SF)
        function_id_ += "/sf" + std::to_string(d_.sf_num_);
}

doca_devinfo::~doca_devinfo() = default;

bool doca_devinfo::server_capable() const noexcept
{
    return d_.side_ == side::dpu && board_->mode_ == softcomch::core::bf_mode::dpu;
}

bool doca_devinfo::client_capable() const noexcept
{
    return d_.side_ == side::host && board_->mode_ == softcomch::core::bf_mode::dpu;
}

bool doca_devinfo::manages_representors() const noexcept
{
    return d_.side_ == side::dpu && board_->mode_ == softcomch::core::bf_mode::dpu &&
           d_.type_ == DOCA_PCI_FUNC_TYPE_PF;
}

std::array<uint8_t, 16> doca_devinfo::ipv6() const noexcept
{
    // fe80::/64 with the modified EUI-64 interface identifier of the MAC (RFC 4291 appendix A).
    std::array<uint8_t, 16> a{};
    a[0] = 0xfe;
    a[1] = 0x80;
    a[8] = static_cast<uint8_t>(d_.mac_[0] ^ 0x02);
    a[9] = d_.mac_[1];
    a[10] = d_.mac_[2];
    a[11] = 0xff;
    a[12] = 0xfe;
    a[13] = d_.mac_[3];
    a[14] = d_.mac_[4];
    a[15] = d_.mac_[5];
    return a;
}

doca_devinfo_rep::doca_devinfo_rep(const softcomch::core::bluefield *board,
                                   softcomch::core::representor_desc desc, doca_devinfo *manager,
                                   doca_devinfo *represented)
    : board_(board), d_(std::move(desc)), manager_(manager), represented_(represented)
{}

doca_devinfo_rep::~doca_devinfo_rep() = default;

// ------------------------------------------------------------------------------------------------
// lists, open, close
// ------------------------------------------------------------------------------------------------

namespace softcomch::core {

namespace {

// Guards open handles, their counts, and the set of live list arrays.
std::mutex g_dev_mu;
std::unordered_set<const void *> g_live_lists;
std::unordered_set<const doca_dev *> g_open_devs;
std::unordered_set<const doca_dev_rep *> g_open_reps;

using access = softcomch_device_access;

// The open shape of a device or representor handle H (caller holds g_dev_mu): the handle already
// open for the function (`open`) gains a count, TOO_BIG at the counter's limit (logged, naming
// `func` and the function's `name`); else `make()` makes one, recorded in `live`.
template <typename H, typename Make>
doca_error_t open_handle(H *&open, std::unordered_set<const H *> &live, const char *func,
                         const std::string &name, Make &&make, H **out)
{
    if (open) {
        uint32_t &n = access::opens_of(open);
        if (n == std::numeric_limits<uint32_t>::max()) {
            SC_LOG_ERR("%s: %s is already open %u times", func, name.c_str(), n);
            return DOCA_ERROR_TOO_BIG;
        }
        ++n;
        *out = open;
        return DOCA_SUCCESS;
    }
    H *h = make();
    try {
        live.insert(h);
    } catch (...) {
        access::destroy(h);
        throw;
    }
    access::opens_of(h) = 1;
    open = h;
    *out = h;
    return DOCA_SUCCESS;
}

// The close shape's first step (caller holds g_dev_mu): the open count of `h`, or nullptr when
// `h` is not an open handle (logged, naming `func` and `what` it should be).
template <typename H>
uint32_t *open_count(const std::unordered_set<const H *> &live, H *h, const char *func,
                     const char *what)
{
    if (live.count(h) != 0)
        return &access::opens_of(h);
    SC_LOG_ERR("%s: %p is not an open %s (already closed?)", func, static_cast<void *>(h), what);
    return nullptr;
}

template <typename T>
doca_error_t make_list(const std::vector<T *> &items, T ***list, uint32_t *count)
{
    if (items.size() > std::numeric_limits<uint32_t>::max())
        return DOCA_ERROR_TOO_BIG;
    T **arr = new T *[items.size() + 1]; // NULL-terminated (not required by DOCA, but handy)
    for (size_t i = 0; i < items.size(); ++i)
        arr[i] = items[i];
    arr[items.size()] = nullptr;
    try {
        std::lock_guard<std::mutex> lock(g_dev_mu);
        g_live_lists.insert(arr);
    } catch (...) {
        delete[] arr;
        throw;
    }
    *list = arr;
    *count = static_cast<uint32_t>(items.size());
    return DOCA_SUCCESS;
}

template <typename T> doca_error_t free_list(const char *func, T **list)
{
    {
        std::lock_guard<std::mutex> lock(g_dev_mu);
        if (g_live_lists.erase(list) == 0) {
            SC_LOG_ERR("%s: %p is not a list returned by the matching create function (or was "
                       "already destroyed)",
                       func, static_cast<void *>(list));
            return DOCA_ERROR_INVALID_VALUE;
        }
    }
    delete[] list;
    return DOCA_SUCCESS;
}

} // namespace

doca_error_t devinfo_create_list(doca_devinfo ***list, uint32_t *count)
{
    const machine_view &m = machine();
    if (m.status != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_devinfo_create_list: %s", m.error.c_str());
        return m.status;
    }
    std::vector<doca_devinfo *> devs = m.visible_devices();
    if (devs.empty()) {
        SC_LOG_ERR("doca_devinfo_create_list: no device visible on the %s side (topology: %s)",
                   m.side_filter ? side_name(*m.side_filter) : "host or dpu",
                   m.topo->origin().c_str());
        return DOCA_ERROR_NOT_FOUND;
    }
    return make_list(devs, list, count);
}

doca_error_t devinfo_destroy_list(doca_devinfo **list)
{
    return free_list("doca_devinfo_destroy_list", list);
}

doca_error_t devinfo_rep_create_list(doca_dev *dev, int filter, doca_devinfo_rep ***list,
                                     uint32_t *count)
{
    constexpr int known = DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED;
    if ((filter & ~known) != 0) {
        SC_LOG_ERR("doca_devinfo_rep_create_list: invalid filter 0x%x (a mask of "
                   "DOCA_DEVINFO_REP_FILTER_NET and "
                   "DOCA_DEVINFO_REP_FILTER_EMULATED, or DOCA_DEVINFO_REP_FILTER_ALL)",
                   static_cast<unsigned>(filter));
        return DOCA_ERROR_INVALID_VALUE;
    }
    const doca_devinfo *info = dev->info();
    if (info->side() == side::host) {
        SC_LOG_ERR("doca_devinfo_rep_create_list: %s (%s) is a host-side function of BlueField %s: "
                   "representors "
                   "exist only on the DPU side; run this program on the DPU side "
                   "(SOFTCOMCH_SIDE=dpu) with a DPU "
                   "device such as 03:00.0",
                   info->pci_addr().c_str(), info->ibdev_name().c_str(),
                   info->bluefield_id().c_str());
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (info->board().mode_ == bf_mode::nic) {
        SC_LOG_ERR("doca_devinfo_rep_create_list: BlueField %s is in NIC mode: it has no "
                   "representors (Comch needs "
                   "DPU mode; see \"mode\" in the topology)",
                   info->bluefield_id().c_str());
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (!info->manages_representors()) {
        SC_LOG_ERR("doca_devinfo_rep_create_list: %s (%s) is a sub-function; representors are "
                   "managed by the DPU's "
                   "PF devices",
                   info->pci_addr().c_str(), info->ibdev_name().c_str());
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    std::vector<doca_devinfo_rep *> out;
    // Every emulated representor is a network (PF/VF/SF) representor; none is of an emulated
    // PCI function, so a filter of EMULATED alone selects nothing.
    if (filter == DOCA_DEVINFO_REP_FILTER_ALL || (filter & DOCA_DEVINFO_REP_FILTER_NET))
        out = info->representors();
    return make_list(out, list, count);
}

doca_error_t devinfo_rep_destroy_list(doca_devinfo_rep **list)
{
    return free_list("doca_devinfo_rep_destroy_list", list);
}

doca_error_t dev_open(doca_devinfo *info, doca_dev **dev)
{
    std::lock_guard<std::mutex> lock(g_dev_mu);
    return open_handle(
        access::open_of(info), g_open_devs, "doca_dev_open", info->pci_addr(),
        [&] { return access::make(info); }, dev);
}

doca_error_t dev_close(doca_dev *dev)
{
    std::lock_guard<std::mutex> lock(g_dev_mu);
    uint32_t *opens = open_count(g_open_devs, dev, "doca_dev_close", "device");
    if (!opens)
        return DOCA_ERROR_INVALID_VALUE;
    if (--*opens == 0) {
        // The handle is closed from here on; the object lives until its holders let go.
        access::open_of(dev->info()) = nullptr;
        g_open_devs.erase(dev);
        if (uint32_t h = dev->holders(); h > 0)
            SC_LOG_DBG(
                "doca_dev_close: %s (%s) still used by %u object(s); freed when the last one goes",
                dev->info()->pci_addr().c_str(), dev->info()->ibdev_name().c_str(), h);
        access::close(dev);
    }
    return DOCA_SUCCESS;
}

doca_error_t dev_rep_open(doca_devinfo_rep *info, doca_dev_rep **rep)
{
    std::string why;
    if (!privilege_allows(info->board().privilege_, credentials::current(), &why)) {
        SC_LOG_ERR("doca_dev_rep_open: %s (%s): permission denied: %s", info->name().c_str(),
                   info->pci_addr().c_str(), why.c_str());
        return DOCA_ERROR_NOT_PERMITTED;
    }
    std::lock_guard<std::mutex> lock(g_dev_mu);
    doca_dev *parent = access::open_of(info->manager());
    if (!parent) {
        SC_LOG_ERR("doca_dev_rep_open: %s: its device %s (%s) is not open (open it, list its "
                   "representors, then "
                   "open one)",
                   info->name().c_str(), info->manager()->pci_addr().c_str(),
                   info->manager()->ibdev_name().c_str());
        return DOCA_ERROR_BAD_STATE;
    }
    doca_dev_rep *&open = access::open_of(info);
    const bool first = open == nullptr;
    doca_error_t rc = open_handle(
        open, g_open_reps, "doca_dev_rep_open", info->name(),
        [&] { return access::make(info, parent); }, rep);
    if (rc == DOCA_SUCCESS && first)
        parent->hold(); // released when the last close destroys the representor
    return rc;
}

doca_error_t dev_rep_close(doca_dev_rep *rep)
{
    std::lock_guard<std::mutex> lock(g_dev_mu);
    uint32_t *opens = open_count(g_open_reps, rep, "doca_dev_rep_close", "representor");
    if (!opens)
        return DOCA_ERROR_INVALID_VALUE;
    if (*opens == 1 && rep->holders() > 0) {
        SC_LOG_ERR("doca_dev_rep_close: %s is still used by %u object(s) (Comch servers): destroy "
                   "them first",
                   rep->info()->name().c_str(), rep->holders());
        return DOCA_ERROR_IN_USE;
    }
    if (--*opens == 0) {
        access::open_of(rep->info()) = nullptr;
        rep->parent()->release();
        g_open_reps.erase(rep);
        access::destroy(rep);
    }
    return DOCA_SUCCESS;
}

bool is_open_device(const doca_dev *dev) noexcept
{
    std::lock_guard<std::mutex> lock(g_dev_mu);
    return g_open_devs.count(dev) != 0;
}

bool is_open_representor(const doca_dev_rep *rep) noexcept
{
    std::lock_guard<std::mutex> lock(g_dev_mu);
    return g_open_reps.count(rep) != 0;
}

} // namespace softcomch::core

void doca_dev::release() noexcept
{
    // seq_cst, like the close's store of closed_: see free_if_unused().
    if (holders_.fetch_sub(1, std::memory_order_seq_cst) == 1)
        free_if_unused();
}

void doca_dev::free_if_unused() noexcept
{
    // Closed and unheld: free. The close (closed_ store, then this) and the last release
    // (holders_ decrement, then this) both come here; with every access seq_cst, at least one
    // of them sees both conditions (the Dekker pattern), and freed_ lets only one free.
    if (!closed_.load(std::memory_order_seq_cst) || holders_.load(std::memory_order_seq_cst) != 0)
        return;
    if (freed_.exchange(true, std::memory_order_acq_rel))
        return;
    delete this;
}

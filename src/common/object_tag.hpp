// SPDX-License-Identifier: Apache-2.0
//
// Every object handed out through the C API starts with a tag (libzmq's idea): set by the
// constructor, overwritten with `dead` by the destructor. Control-path entry points check it so
// that a stale or foreign pointer yields DOCA_ERROR_INVALID_VALUE and a log line instead of a
// crash; data-path entry points only assert it.
#pragma once

#include <cstdint>

namespace softcomch {

enum class object_kind : uint32_t {
    dead = 0xdeadbeef,
    pe = 0x53435045,          // "SCPE"
    ctx = 0x53434358,         // "SCCX"
    dev = 0x53434456,         // "SCDV"
    dev_rep = 0x53434452,     // "SCDR"
    devinfo = 0x53434449,     // "SCDI"
    devinfo_rep = 0x53434952, // "SCIR"
    mmap = 0x53434d4d,        // "SCMM"
    buf = 0x53434246,         // "SCBF"
    buf_inventory = 0x53434249,
    task = 0x53435441,
    connection = 0x5343434e,
    argp_param = 0x53434150,
    log_backend = 0x53434c42,
    graph = 0x53434750,          // "SCGP"
    graph_node = 0x5343474e,     // "SCGN"
    graph_instance = 0x53434749, // "SCGI"
};

// Embed as the first member of a tagged object.
class object_tag {
public:
    explicit object_tag(object_kind kind) noexcept : tag_(kind) {}
    ~object_tag() { tag_ = object_kind::dead; }
    object_tag(const object_tag &) = delete;
    object_tag &operator=(const object_tag &) = delete;

    bool is(object_kind kind) const noexcept { return tag_ == kind; }
    object_kind kind() const noexcept { return tag_; }

private:
    volatile object_kind tag_; // volatile: the store in the destructor must not be elided
};

} // namespace softcomch

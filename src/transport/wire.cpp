// SPDX-License-Identifier: Apache-2.0
//
// Encoding and validating decoding of the handshake messages (layouts in wire.hpp).
#include "transport/wire.hpp"

#include <cstring>
#include <new>
#include <utility>

namespace softcomch::transport::wire {

namespace {

// ---- byte layouts (offsets from the start of the datagram) ----

// HELLO
constexpr size_t k_hello_proto_min = 16;
constexpr size_t k_hello_proto_max = 18;
constexpr size_t k_hello_pid = 20;
constexpr size_t k_hello_max_msg = 24;
constexpr size_t k_hello_queue = 28;
constexpr size_t k_hello_bf_len = 32;
constexpr size_t k_hello_hf_len = 33;
constexpr size_t k_hello_name_len = 34;
constexpr size_t k_hello_reserved = 36;
constexpr size_t k_hello_bf = 40;
constexpr size_t k_hello_hf = 72;
constexpr size_t k_hello_name = 104;
constexpr size_t k_id_field = 32;    // bytes reserved for an id string
constexpr size_t k_name_field = 256; // bytes reserved for the server name
constexpr size_t k_hello_size = k_hello_name + k_name_field;
static_assert(k_hello_bf + k_id_field == k_hello_hf && k_hello_hf + k_id_field == k_hello_name);
static_assert(k_hello_size == 360);

// ACCEPT
constexpr size_t k_acc_proto = 16;
constexpr size_t k_acc_reserved0 = 18;
constexpr size_t k_acc_max_msg = 20;
constexpr size_t k_acc_conn_id = 24;
constexpr size_t k_acc_c2s_cap = 32;
constexpr size_t k_acc_s2c_cap = 36;
constexpr size_t k_acc_c2s_limit = 40;
constexpr size_t k_acc_s2c_limit = 44;
constexpr size_t k_acc_record = 48;
constexpr size_t k_acc_bell = 52;
constexpr size_t k_acc_seg_size = 56;
constexpr size_t k_accept_size = 64;

// REJECT
constexpr size_t k_rej_reason = 16;
constexpr size_t k_rej_text_len = 20;
constexpr size_t k_rej_reserved = 22;
constexpr size_t k_rej_text = 24;
constexpr size_t k_text_field = 256;
constexpr size_t k_reject_size = k_rej_text + k_text_field;
static_assert(k_reject_size == 280);

// CONSUMER_ANNOUNCE
constexpr size_t k_ann_id = 16;
constexpr size_t k_ann_imm = 20;
constexpr size_t k_ann_chan_size = 24;
constexpr size_t k_ann_mech = 32;
constexpr size_t k_ann_pid = 36;
constexpr size_t k_ann_addr = 40;
constexpr size_t k_ann_len = 48;
constexpr size_t k_ann_map_base = 56;
constexpr size_t k_ann_map_size = 64;
constexpr size_t k_ann_file_off = 72;
constexpr size_t k_announce_size = 80;
constexpr uint32_t k_max_imm = 32;

// CONSUMER_ACK / CONSUMER_EXPIRE
constexpr size_t k_cons_id = 16;
constexpr size_t k_cons_word = 20;
constexpr size_t k_cons_size = 24;

static_assert(k_hello_size <= k_max_message_size && k_accept_size <= k_max_message_size &&
              k_reject_size <= k_max_message_size);

// The type table: size and fd count per known type.
struct type_row {
    msg_type type;
    size_t size;
    size_t nfds;
    const char *name;
};
constexpr type_row k_types[] = {
    {msg_type::hello, k_hello_size, 1, "HELLO"},
    {msg_type::accept, k_accept_size, 3, "ACCEPT"},
    {msg_type::reject, k_reject_size, 0, "REJECT"},
    // nfds is the maximum: 3 with shared memory, 2 with process_vm_writev (checked by the caller).
    {msg_type::consumer_announce, k_announce_size, 3, "CONSUMER_ANNOUNCE"},
    {msg_type::consumer_ack, k_cons_size, 0, "CONSUMER_ACK"},
    {msg_type::consumer_expire, k_cons_size, 0, "CONSUMER_EXPIRE"},
};

const type_row *find_type(uint16_t t) noexcept
{
    for (const auto &r : k_types) {
        if (uint16_t(r.type) == t)
            return &r;
    }
    return nullptr;
}

// ---- little-endian helpers (byte by byte: independent of host order and alignment) ----

void put16(uint8_t *p, uint16_t v) noexcept
{
    p[0] = uint8_t(v);
    p[1] = uint8_t(v >> 8);
}
void put32(uint8_t *p, uint32_t v) noexcept
{
    for (int i = 0; i < 4; ++i)
        p[i] = uint8_t(v >> (8 * i));
}
void put64(uint8_t *p, uint64_t v) noexcept
{
    for (int i = 0; i < 8; ++i)
        p[i] = uint8_t(v >> (8 * i));
}
uint16_t get16(const uint8_t *p) noexcept
{
    return uint16_t(p[0] | (p[1] << 8));
}
uint32_t get32(const uint8_t *p) noexcept
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}
uint64_t get64(const uint8_t *p) noexcept
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

// ---- field rules (shared by encoder and decoder so they can never disagree) ----

bool is_pow2(uint32_t v) noexcept
{
    return v != 0 && (v & (v - 1)) == 0;
}

// Id strings: 1..31 printable ASCII without spaces.
bool valid_id(const char *s, size_t n) noexcept
{
    if (n == 0 || n > k_max_id_len)
        return false;
    for (size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x21 || c > 0x7e)
            return false;
    }
    return true;
}

// Free text / names: any byte but NUL, bounded length (min given by the caller).
bool valid_text(const char *s, size_t n, size_t min, size_t max) noexcept
{
    return n >= min && n <= max && std::memchr(s, 0, n) == nullptr;
}

// Bytes [p, p + n) all zero (padding and reserved fields).
bool all_zero(const uint8_t *p, size_t n) noexcept
{
    for (size_t i = 0; i < n; ++i) {
        if (p[i] != 0)
            return false;
    }
    return true;
}

bool valid_hello(const hello_msg &m) noexcept
{
    return m.proto_min >= 1 && m.proto_min <= m.proto_max && m.client_pid > 0 &&
           m.max_msg_size > 0 && m.recv_queue_size > 0 &&
           valid_id(m.bluefield.data(), m.bluefield.size()) &&
           valid_id(m.host_function.data(), m.host_function.size()) &&
           valid_text(m.server_name.data(), m.server_name.size(), 1, k_max_name_len);
}

bool valid_accept(const accept_msg &m) noexcept
{
    // Ring shapes follow shm::ring_layout::valid() (layout 2): byte capacities that are powers
    // of two and hold two maximal records; the rings themselves are validated again at attach.
    return m.proto_version >= 1 && m.max_msg_size > 0 && m.max_record % 64 == 0 &&
           uint64_t(m.max_record) >= 16 + uint64_t(m.max_msg_size) && is_pow2(m.c2s_capacity) &&
           is_pow2(m.s2c_capacity) && uint64_t(m.c2s_capacity) >= 2 * uint64_t(m.max_record) &&
           uint64_t(m.s2c_capacity) >= 2 * uint64_t(m.max_record) && m.c2s_limit >= 1 &&
           m.s2c_limit >= 1 && m.segment_size != 0 && m.segment_size % 4096 == 0 &&
           (m.bell < 4096 || m.bell == 0xffffffffu);
}

// Reason codes: the DOCA error values this version knows (DOCA_ERROR_UNKNOWN..DOCA_ERROR_SKIPPED).
// Anything else cannot even be held in a doca_error_t without undefined behaviour (the enum's
// value range ends at 31), so it is checked as an integer before the conversion.
constexpr uint32_t k_min_reason = DOCA_ERROR_UNKNOWN;
constexpr uint32_t k_max_reason = DOCA_ERROR_SKIPPED;

bool valid_reason(uint32_t r) noexcept
{
    return r >= k_min_reason && r <= k_max_reason;
}

bool valid_reject(const reject_msg &m) noexcept
{
    return valid_reason(static_cast<uint32_t>(m.reason)) &&
           valid_text(m.text.data(), m.text.size(), 0, k_max_text_len);
}

// Writes the common header and zeroes the body.
void start(uint8_t *buf, msg_type t, size_t size) noexcept
{
    std::memset(buf, 0, size);
    put32(buf, k_magic);
    put16(buf + 4, k_wire_version);
    put16(buf + 6, uint16_t(t));
    put32(buf + 8, uint32_t(size));
    put32(buf + 12, 0);
}

// Header check for a datagram that must be of type `want`.
doca_error_t expect(const uint8_t *buf, size_t len, msg_type want) noexcept
{
    header h;
    const doca_error_t err = decode_header(buf, len, &h);
    if (err == DOCA_ERROR_NOT_SUPPORTED)
        return DOCA_ERROR_INVALID_VALUE; // a type we do not know is not the type we want
    if (err != DOCA_SUCCESS)
        return err;
    return h.type == uint16_t(want) ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

} // namespace

size_t message_size(msg_type type) noexcept
{
    const type_row *r = find_type(uint16_t(type));
    return r ? r->size : 0;
}

size_t fds_for(msg_type type) noexcept
{
    const type_row *r = find_type(uint16_t(type));
    return r ? r->nfds : 0;
}

const char *type_name(msg_type type) noexcept
{
    const type_row *r = find_type(uint16_t(type));
    return r ? r->name : "UNKNOWN";
}

// ---- encoders ----

doca_error_t encode(const hello_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept
{
    if (!valid_hello(m) || buf == nullptr || len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (cap < k_hello_size)
        return DOCA_ERROR_TOO_BIG;
    start(buf, msg_type::hello, k_hello_size);
    put16(buf + k_hello_proto_min, m.proto_min);
    put16(buf + k_hello_proto_max, m.proto_max);
    put32(buf + k_hello_pid, m.client_pid);
    put32(buf + k_hello_max_msg, m.max_msg_size);
    put32(buf + k_hello_queue, m.recv_queue_size);
    buf[k_hello_bf_len] = uint8_t(m.bluefield.size());
    buf[k_hello_hf_len] = uint8_t(m.host_function.size());
    put16(buf + k_hello_name_len, uint16_t(m.server_name.size()));
    std::memcpy(buf + k_hello_bf, m.bluefield.data(), m.bluefield.size());
    std::memcpy(buf + k_hello_hf, m.host_function.data(), m.host_function.size());
    std::memcpy(buf + k_hello_name, m.server_name.data(), m.server_name.size());
    *len = k_hello_size;
    return DOCA_SUCCESS;
}

doca_error_t encode(const accept_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept
{
    if (!valid_accept(m) || buf == nullptr || len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (cap < k_accept_size)
        return DOCA_ERROR_TOO_BIG;
    start(buf, msg_type::accept, k_accept_size);
    put16(buf + k_acc_proto, m.proto_version);
    put32(buf + k_acc_max_msg, m.max_msg_size);
    put64(buf + k_acc_conn_id, m.connection_id);
    put32(buf + k_acc_c2s_cap, m.c2s_capacity);
    put32(buf + k_acc_s2c_cap, m.s2c_capacity);
    put32(buf + k_acc_c2s_limit, m.c2s_limit);
    put32(buf + k_acc_s2c_limit, m.s2c_limit);
    put32(buf + k_acc_record, m.max_record);
    put64(buf + k_acc_seg_size, m.segment_size);
    put32(buf + k_acc_bell, m.bell);
    *len = k_accept_size;
    return DOCA_SUCCESS;
}

doca_error_t encode(const reject_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept
{
    if (!valid_reject(m) || buf == nullptr || len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (cap < k_reject_size)
        return DOCA_ERROR_TOO_BIG;
    start(buf, msg_type::reject, k_reject_size);
    put32(buf + k_rej_reason, static_cast<uint32_t>(m.reason));
    put16(buf + k_rej_text_len, uint16_t(m.text.size()));
    std::memcpy(buf + k_rej_text, m.text.data(), m.text.size());
    *len = k_reject_size;
    return DOCA_SUCCESS;
}

bool valid_announce(const consumer_announce_msg &m) noexcept
{
    if (m.consumer_id == 0 || m.imm_data_len > k_max_imm || m.pid == 0 || m.channel_size == 0 ||
        m.len == 0 || m.addr + m.len < m.addr)
        return false;
    if (m.mechanism == 2)
        return m.map_base == 0 && m.map_size == 0 && m.file_offset == 0;
    // shared: the registered range lies inside the mapped pages
    return m.mechanism == 1 && m.map_size != 0 && m.map_base + m.map_size > m.map_base &&
           m.map_base <= m.addr && m.addr + m.len <= m.map_base + m.map_size;
}

doca_error_t encode(const consumer_announce_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept
{
    if (!valid_announce(m) || buf == nullptr || len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (cap < k_announce_size)
        return DOCA_ERROR_TOO_BIG;
    start(buf, msg_type::consumer_announce, k_announce_size);
    put32(buf + k_ann_id, m.consumer_id);
    put32(buf + k_ann_imm, m.imm_data_len);
    put64(buf + k_ann_chan_size, m.channel_size);
    put32(buf + k_ann_mech, m.mechanism);
    put32(buf + k_ann_pid, m.pid);
    put64(buf + k_ann_addr, m.addr);
    put64(buf + k_ann_len, m.len);
    put64(buf + k_ann_map_base, m.map_base);
    put64(buf + k_ann_map_size, m.map_size);
    put64(buf + k_ann_file_off, m.file_offset);
    *len = k_announce_size;
    return DOCA_SUCCESS;
}

doca_error_t encode(const consumer_ack_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept
{
    if (m.consumer_id == 0 || m.status > 30 || buf == nullptr || len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (cap < k_cons_size)
        return DOCA_ERROR_TOO_BIG;
    start(buf, msg_type::consumer_ack, k_cons_size);
    put32(buf + k_cons_id, m.consumer_id);
    put32(buf + k_cons_word, m.status);
    *len = k_cons_size;
    return DOCA_SUCCESS;
}

doca_error_t encode(const consumer_expire_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept
{
    if (m.consumer_id == 0 || buf == nullptr || len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (cap < k_cons_size)
        return DOCA_ERROR_TOO_BIG;
    start(buf, msg_type::consumer_expire, k_cons_size);
    put32(buf + k_cons_id, m.consumer_id);
    *len = k_cons_size;
    return DOCA_SUCCESS;
}

// ---- decoders ----

doca_error_t decode_header(const uint8_t *buf, size_t len, header *out) noexcept
{
    // Never read a byte before knowing the header is there.
    if (buf == nullptr || len < k_header_size)
        return DOCA_ERROR_INVALID_VALUE;
    header h;
    h.magic = get32(buf);
    h.version = get16(buf + 4);
    h.type = get16(buf + 6);
    h.length = get32(buf + 8);
    h.flags = get32(buf + 12);
    if (h.magic != k_magic)
        return DOCA_ERROR_INVALID_VALUE;
    if (h.version != k_wire_version)
        return DOCA_ERROR_UNSUPPORTED_VERSION;
    // The declared length must be the datagram's size: no trailing bytes, no truncation.
    if (h.flags != 0 || h.length != len || h.length < k_header_size ||
        h.length > k_max_message_size)
        return DOCA_ERROR_INVALID_VALUE;
    const type_row *r = find_type(h.type);
    if (r == nullptr) {
        if (out != nullptr)
            *out = h;
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (h.length != r->size)
        return DOCA_ERROR_INVALID_VALUE;
    if (out != nullptr)
        *out = h;
    return DOCA_SUCCESS;
}

doca_error_t decode(const uint8_t *buf, size_t len, hello_msg *out) noexcept
{
    doca_error_t err = expect(buf, len, msg_type::hello);
    if (err != DOCA_SUCCESS)
        return err;
    // Lengths first (bounded by their fields), then padding, then content.
    const size_t bf_len = buf[k_hello_bf_len];
    const size_t hf_len = buf[k_hello_hf_len];
    const size_t name_len = get16(buf + k_hello_name_len);
    if (bf_len > k_max_id_len || hf_len > k_max_id_len || name_len > k_max_name_len)
        return DOCA_ERROR_INVALID_VALUE;
    if (!all_zero(buf + k_hello_reserved, 4) ||
        !all_zero(buf + k_hello_bf + bf_len, k_id_field - bf_len) ||
        !all_zero(buf + k_hello_hf + hf_len, k_id_field - hf_len) ||
        !all_zero(buf + k_hello_name + name_len, k_name_field - name_len))
        return DOCA_ERROR_INVALID_VALUE;
    try {
        hello_msg m;
        m.proto_min = get16(buf + k_hello_proto_min);
        m.proto_max = get16(buf + k_hello_proto_max);
        m.client_pid = get32(buf + k_hello_pid);
        m.max_msg_size = get32(buf + k_hello_max_msg);
        m.recv_queue_size = get32(buf + k_hello_queue);
        m.bluefield.assign(reinterpret_cast<const char *>(buf + k_hello_bf), bf_len);
        m.host_function.assign(reinterpret_cast<const char *>(buf + k_hello_hf), hf_len);
        m.server_name.assign(reinterpret_cast<const char *>(buf + k_hello_name), name_len);
        if (!valid_hello(m))
            return DOCA_ERROR_INVALID_VALUE;
        if (out != nullptr)
            *out = std::move(m);
    } catch (const std::bad_alloc &) {
        return DOCA_ERROR_NO_MEMORY;
    }
    return DOCA_SUCCESS;
}

doca_error_t decode(const uint8_t *buf, size_t len, accept_msg *out) noexcept
{
    doca_error_t err = expect(buf, len, msg_type::accept);
    if (err != DOCA_SUCCESS)
        return err;
    if (!all_zero(buf + k_acc_reserved0, 2))
        return DOCA_ERROR_INVALID_VALUE;
    accept_msg m;
    m.proto_version = get16(buf + k_acc_proto);
    m.max_msg_size = get32(buf + k_acc_max_msg);
    m.connection_id = get64(buf + k_acc_conn_id);
    m.c2s_capacity = get32(buf + k_acc_c2s_cap);
    m.s2c_capacity = get32(buf + k_acc_s2c_cap);
    m.c2s_limit = get32(buf + k_acc_c2s_limit);
    m.s2c_limit = get32(buf + k_acc_s2c_limit);
    m.max_record = get32(buf + k_acc_record);
    m.segment_size = get64(buf + k_acc_seg_size);
    m.bell = get32(buf + k_acc_bell);
    if (!valid_accept(m))
        return DOCA_ERROR_INVALID_VALUE;
    if (out != nullptr)
        *out = m;
    return DOCA_SUCCESS;
}

doca_error_t decode(const uint8_t *buf, size_t len, reject_msg *out) noexcept
{
    doca_error_t err = expect(buf, len, msg_type::reject);
    if (err != DOCA_SUCCESS)
        return err;
    const size_t text_len = get16(buf + k_rej_text_len);
    if (text_len > k_max_text_len || !all_zero(buf + k_rej_reserved, 2) ||
        !all_zero(buf + k_rej_text + text_len, k_text_field - text_len))
        return DOCA_ERROR_INVALID_VALUE;
    const uint32_t reason = get32(buf + k_rej_reason);
    if (!valid_reason(reason))
        return DOCA_ERROR_INVALID_VALUE;
    try {
        reject_msg m;
        m.reason = static_cast<doca_error_t>(reason);
        m.text.assign(reinterpret_cast<const char *>(buf + k_rej_text), text_len);
        if (!valid_reject(m))
            return DOCA_ERROR_INVALID_VALUE;
        if (out != nullptr)
            *out = std::move(m);
    } catch (const std::bad_alloc &) {
        return DOCA_ERROR_NO_MEMORY;
    }
    return DOCA_SUCCESS;
}

doca_error_t decode(const uint8_t *buf, size_t len, consumer_announce_msg *out) noexcept
{
    doca_error_t err = expect(buf, len, msg_type::consumer_announce);
    if (err != DOCA_SUCCESS)
        return err;
    consumer_announce_msg m;
    m.consumer_id = get32(buf + k_ann_id);
    m.imm_data_len = get32(buf + k_ann_imm);
    m.channel_size = get64(buf + k_ann_chan_size);
    m.mechanism = get32(buf + k_ann_mech);
    m.pid = get32(buf + k_ann_pid);
    m.addr = get64(buf + k_ann_addr);
    m.len = get64(buf + k_ann_len);
    m.map_base = get64(buf + k_ann_map_base);
    m.map_size = get64(buf + k_ann_map_size);
    m.file_offset = get64(buf + k_ann_file_off);
    if (!valid_announce(m))
        return DOCA_ERROR_INVALID_VALUE;
    if (out != nullptr)
        *out = m;
    return DOCA_SUCCESS;
}

doca_error_t decode(const uint8_t *buf, size_t len, consumer_ack_msg *out) noexcept
{
    doca_error_t err = expect(buf, len, msg_type::consumer_ack);
    if (err != DOCA_SUCCESS)
        return err;
    consumer_ack_msg m;
    m.consumer_id = get32(buf + k_cons_id);
    m.status = get32(buf + k_cons_word);
    if (m.consumer_id == 0 || m.status > 30)
        return DOCA_ERROR_INVALID_VALUE;
    if (out != nullptr)
        *out = m;
    return DOCA_SUCCESS;
}

doca_error_t decode(const uint8_t *buf, size_t len, consumer_expire_msg *out) noexcept
{
    doca_error_t err = expect(buf, len, msg_type::consumer_expire);
    if (err != DOCA_SUCCESS)
        return err;
    consumer_expire_msg m;
    m.consumer_id = get32(buf + k_cons_id);
    if (m.consumer_id == 0 || !all_zero(buf + k_cons_word, 4))
        return DOCA_ERROR_INVALID_VALUE;
    if (out != nullptr)
        *out = m;
    return DOCA_SUCCESS;
}

namespace {

// One message of type M decoded into `out` (when given) on success only.
template <class M> doca_error_t decode_as(const uint8_t *buf, size_t len, message *out)
{
    M m;
    const doca_error_t err = decode(buf, len, &m);
    if (err == DOCA_SUCCESS && out != nullptr)
        *out = std::move(m);
    return err;
}

} // namespace

doca_error_t decode_any(const uint8_t *buf, size_t len, message *out) noexcept
{
    header h;
    doca_error_t err = decode_header(buf, len, &h);
    if (err != DOCA_SUCCESS)
        return err;
    // Dispatch on the (validated) type; each decoder re-checks its own header.
    try {
        switch (static_cast<msg_type>(h.type)) {
        case msg_type::hello:
            return decode_as<hello_msg>(buf, len, out);
        case msg_type::accept:
            return decode_as<accept_msg>(buf, len, out);
        case msg_type::reject:
            return decode_as<reject_msg>(buf, len, out);
        case msg_type::consumer_announce:
            return decode_as<consumer_announce_msg>(buf, len, out);
        case msg_type::consumer_ack:
            return decode_as<consumer_ack_msg>(buf, len, out);
        case msg_type::consumer_expire:
            return decode_as<consumer_expire_msg>(buf, len, out);
        }
    } catch (const std::bad_alloc &) {
        return DOCA_ERROR_NO_MEMORY;
    }
    return DOCA_ERROR_NOT_SUPPORTED;
}

} // namespace softcomch::transport::wire

// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: every decoder of the socket messages (src/transport/wire.hpp): the handshake
// (HELLO, ACCEPT, REJECT) and the fast-path messages (CONSUMER_ANNOUNCE, CONSUMER_ACK,
// CONSUMER_EXPIRE). For any byte string:
//   - no decoder crashes or reads outside the datagram;
//   - every return is one of the codes wire.hpp documents for that function;
//   - at most one typed decoder accepts it, exactly when decode_any() does, and then the header
//     is valid and names that type;
//   - an accepted message is canonical: it re-encodes to exactly the same bytes, and decoding
//     those bytes again gives an equal message; the type table (size, fd count, name) knows it.
#include "fuzz_target.hpp"

#include "transport/wire.hpp"

#include <cstring>
#include <variant>

using namespace softcomch::transport::wire;

namespace {

using softcomch::fuzz::invariant_failed;

bool same(const hello_msg &a, const hello_msg &b)
{
    return a.proto_min == b.proto_min && a.proto_max == b.proto_max &&
           a.client_pid == b.client_pid && a.max_msg_size == b.max_msg_size &&
           a.recv_queue_size == b.recv_queue_size && a.bluefield == b.bluefield &&
           a.host_function == b.host_function && a.server_name == b.server_name;
}
bool same(const accept_msg &a, const accept_msg &b)
{
    return a.proto_version == b.proto_version && a.max_msg_size == b.max_msg_size &&
           a.connection_id == b.connection_id && a.c2s_capacity == b.c2s_capacity &&
           a.s2c_capacity == b.s2c_capacity && a.c2s_limit == b.c2s_limit &&
           a.s2c_limit == b.s2c_limit && a.max_record == b.max_record &&
           a.segment_size == b.segment_size && a.bell == b.bell;
}
bool same(const reject_msg &a, const reject_msg &b)
{
    return a.reason == b.reason && a.text == b.text;
}
bool same(const consumer_announce_msg &a, const consumer_announce_msg &b)
{
    return a.consumer_id == b.consumer_id && a.imm_data_len == b.imm_data_len &&
           a.channel_size == b.channel_size && a.mechanism == b.mechanism && a.pid == b.pid &&
           a.addr == b.addr && a.len == b.len && a.map_base == b.map_base &&
           a.map_size == b.map_size && a.file_offset == b.file_offset;
}
bool same(const consumer_ack_msg &a, const consumer_ack_msg &b)
{
    return a.consumer_id == b.consumer_id && a.status == b.status;
}
bool same(const consumer_expire_msg &a, const consumer_expire_msg &b)
{
    return a.consumer_id == b.consumer_id;
}

// decode_header(): wire.hpp documents these four.
bool header_code(doca_error_t e)
{
    return e == DOCA_SUCCESS || e == DOCA_ERROR_INVALID_VALUE ||
           e == DOCA_ERROR_UNSUPPORTED_VERSION || e == DOCA_ERROR_NOT_SUPPORTED;
}
// Typed decoders: a type they do not decode is INVALID_VALUE, never NOT_SUPPORTED.
bool typed_code(doca_error_t e)
{
    return e == DOCA_SUCCESS || e == DOCA_ERROR_INVALID_VALUE ||
           e == DOCA_ERROR_UNSUPPORTED_VERSION || e == DOCA_ERROR_NO_MEMORY;
}

// The typed decoder for message kind M: its code must be documented, it must accept exactly
// when decode_any() produced an M, and then agree with it field by field. Its result without an
// output pointer must be the same.
template <typename M>
void check_typed(const uint8_t *data, size_t size, const message *any, int *accepted)
{
    M m;
    const doca_error_t e = decode(data, size, &m);
    if (!typed_code(e) || decode(data, size, static_cast<M *>(nullptr)) != e)
        invariant_failed();
    if (e != DOCA_SUCCESS)
        return;
    ++*accepted;
    const M *from_any = any != nullptr ? std::get_if<M>(any) : nullptr;
    if (from_any == nullptr || !same(m, *from_any))
        invariant_failed();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    header h;
    const doca_error_t herr = decode_header(data, size, &h);
    if (!header_code(herr) || decode_header(data, size, nullptr) != herr)
        invariant_failed();
    if (herr == DOCA_ERROR_NOT_SUPPORTED && message_size(static_cast<msg_type>(h.type)) != 0)
        invariant_failed(); // "unknown type" for a type the table knows

    message m;
    const doca_error_t err = decode_any(data, size, &m);
    if (!header_code(err) && err != DOCA_ERROR_NO_MEMORY)
        invariant_failed();
    // A header refusal is decode_any()'s refusal, with the same code.
    if (herr != DOCA_SUCCESS && err != herr)
        invariant_failed();

    const message *any = err == DOCA_SUCCESS ? &m : nullptr;
    int accepted = 0;
    check_typed<hello_msg>(data, size, any, &accepted);
    check_typed<accept_msg>(data, size, any, &accepted);
    check_typed<reject_msg>(data, size, any, &accepted);
    check_typed<consumer_announce_msg>(data, size, any, &accepted);
    check_typed<consumer_ack_msg>(data, size, any, &accepted);
    check_typed<consumer_expire_msg>(data, size, any, &accepted);
    if (accepted != (err == DOCA_SUCCESS ? 1 : 0))
        invariant_failed();
    if (err != DOCA_SUCCESS)
        return 0;

    // The header agrees with the message kind, and the type table knows the type.
    const auto type = static_cast<msg_type>(h.type);
    const bool fdless = type == msg_type::reject || type == msg_type::consumer_ack ||
                        type == msg_type::consumer_expire;
    if (herr != DOCA_SUCCESS || message_size(type) != size || (fds_for(type) == 0) != fdless)
        invariant_failed();
    if (std::strcmp(type_name(type), "UNKNOWN") == 0)
        invariant_failed();

    // Canonical: re-encoding gives the same bytes; decoding them again, an equal message.
    uint8_t out[k_max_message_size];
    size_t len = 0;
    const doca_error_t eerr =
        std::visit([&](const auto &v) { return encode(v, out, sizeof out, &len); }, m);
    if (eerr != DOCA_SUCCESS || len != size || std::memcmp(out, data, size) != 0)
        invariant_failed();
    // A buffer one byte short is refused without writing past it.
    size_t short_len = 12345;
    if (std::visit([&](const auto &v) { return encode(v, out, size - 1, &short_len); }, m) !=
            DOCA_ERROR_TOO_BIG ||
        short_len != 12345)
        invariant_failed();
    message again;
    if (decode_any(out, len, &again) != DOCA_SUCCESS || again.index() != m.index() ||
        !std::visit(
            [&](const auto &v) { return same(v, std::get<std::decay_t<decltype(v)>>(again)); }, m))
        invariant_failed();
    return 0;
}

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto add = [&](const std::string &name, const auto &msg) {
        std::vector<uint8_t> b(k_max_message_size);
        size_t len = 0;
        if (encode(msg, b.data(), b.size(), &len) != DOCA_SUCCESS)
            invariant_failed();
        b.resize(len);
        out.emplace_back(name, b);
    };
    hello_msg h;
    h.proto_min = 1;
    h.proto_max = 1;
    h.client_pid = 1234;
    h.max_msg_size = 4080;
    h.recv_queue_size = 16;
    h.bluefield = "bf0";
    h.host_function = "0000:b1:00.0";
    h.server_name = "comch_ctrl_path_sample_server";
    add("hello.bin", h);
    h.server_name = std::string(255, 'n');
    add("hello_long_name.bin", h);

    accept_msg a;
    a.max_msg_size = 4080;
    a.connection_id = 7;
    a.c2s_capacity = 131072;
    a.s2c_capacity = 131072;
    a.c2s_limit = 10;
    a.s2c_limit = 16;
    a.max_record = 4096;
    a.segment_size = 4096 * 35;
    add("accept.bin", a);
    a.bell = 4095;
    add("accept_bell.bin", a);

    reject_msg r;
    r.reason = DOCA_ERROR_NOT_FOUND;
    r.text = "no such server";
    add("reject.bin", r);

    consumer_announce_msg ann;
    ann.consumer_id = 3;
    ann.imm_data_len = 32;
    ann.channel_size = 8192;
    ann.mechanism = 1; // shared
    ann.pid = 4321;
    ann.addr = 0x7f0000001040;
    ann.len = 65536;
    ann.map_base = 0x7f0000001000;
    ann.map_size = 69632;
    ann.file_offset = 0;
    add("consumer_announce_shared.bin", ann);
    ann.mechanism = 2; // process_vm_writev
    ann.map_base = ann.map_size = ann.file_offset = 0;
    add("consumer_announce_pvw.bin", ann);

    consumer_ack_msg ack;
    ack.consumer_id = 3;
    ack.status = 0;
    add("consumer_ack.bin", ack);
    ack.status = DOCA_ERROR_NO_MEMORY;
    add("consumer_ack_refused.bin", ack);

    consumer_expire_msg exp;
    exp.consumer_id = 3;
    add("consumer_expire.bin", exp);

    // Broken ones: truncated, header only, unknown type, other version.
    auto trunc = out[0].second;
    trunc.resize(100);
    out.emplace_back("hello_truncated.bin", trunc);
    auto acc_trunc = out[2].second;
    acc_trunc.resize(63);
    out.emplace_back("accept_truncated.bin", acc_trunc);
    auto hdr = out[2].second;
    hdr.resize(k_header_size);
    out.emplace_back("header_only.bin", hdr);
    auto unknown = out[2].second;
    unknown[6] = 19; // a type number nobody uses yet
    out.emplace_back("unknown_type.bin", unknown);
    auto ver = out[3].second;
    ver[4] = 2;
    out.emplace_back("reject_version2.bin", ver);
    return out;
}

} // namespace softcomch::fuzz

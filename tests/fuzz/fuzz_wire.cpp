// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: decoding of the handshake messages (src/transport/wire.hpp). Any byte string must
// be rejected cleanly or decode into a message that re-encodes to exactly the same bytes.
#include "fuzz_target.hpp"

#include "transport/wire.hpp"

#include <cstring>
#include <variant>

using namespace softcomch::transport::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // Header alone.
    header h;
    const doca_error_t herr = decode_header(data, size, &h);

    // Every typed decoder on every input (each must refuse what is not its type).
    hello_msg hm;
    accept_msg am;
    reject_msg rm;
    const doca_error_t e1 = decode(data, size, &hm);
    const doca_error_t e2 = decode(data, size, &am);
    const doca_error_t e3 = decode(data, size, &rm);
    const int ok_count = (e1 == DOCA_SUCCESS) + (e2 == DOCA_SUCCESS) + (e3 == DOCA_SUCCESS);
    if (ok_count > 1 || (ok_count == 1 && herr != DOCA_SUCCESS))
        softcomch::fuzz::invariant_failed();

    message m;
    const doca_error_t err = decode_any(data, size, &m);
    if ((err == DOCA_SUCCESS) != (ok_count == 1))
        softcomch::fuzz::invariant_failed();
    if (err != DOCA_SUCCESS)
        return 0;

    // Accepted input is canonical: re-encoding gives the same bytes, and the fd count is known.
    uint8_t out[k_max_message_size];
    size_t len = 0;
    const doca_error_t eerr =
        std::visit([&](const auto &v) { return encode(v, out, sizeof out, &len); }, m);
    if (eerr != DOCA_SUCCESS || len != size || std::memcmp(out, data, size) != 0)
        softcomch::fuzz::invariant_failed();
    if (message_size(static_cast<msg_type>(h.type)) != size)
        softcomch::fuzz::invariant_failed();
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

    reject_msg r;
    r.reason = DOCA_ERROR_NOT_FOUND;
    r.text = "no such server";
    add("reject.bin", r);

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
    unknown[6] = 16; // a future type number (mmap_export)
    out.emplace_back("unknown_type.bin", unknown);
    auto ver = out[3].second;
    ver[4] = 2;
    out.emplace_back("reject_version2.bin", ver);
    return out;
}

} // namespace softcomch::fuzz

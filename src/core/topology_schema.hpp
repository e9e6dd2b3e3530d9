// SPDX-License-Identifier: Apache-2.0
//
// The topology file's schema checks (docs/topology.md): typed access to a parsed JSON document
// that names the offending member by its JSON path ("$.bluefields[0].host[2].pci") when a value
// is missing, of the wrong type, out of range or malformed, and the text forms of the file's MAC
// and IPv4 values. Used by the topology builder (topology_builder.cpp) and by topology::to_json().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "common/json.hpp"

namespace softcomch::core::schema {

// What a schema check throws: the JSON path of the offending value and the problem.
struct schema_error {
    std::string path;
    std::string what;
};

[[noreturn]] void fail(const std::string &path, std::string what);

// "$.a" + "b" -> "$.a.b"; "$.a" + 2 -> "$.a[2]".
std::string member_path(const std::string &base, std::string_view key);
std::string index_path(const std::string &base, size_t i);

// Refuses members other than `allowed` (a typo must not be silently ignored).
void check_keys(const json::value &obj, const std::string &path,
                std::initializer_list<std::string_view> allowed);

const json::value &require_object(const json::value &v, const std::string &path);
const json::value *optional_member(const json::value &obj, std::string_view key);
const json::value &required_member(const json::value &obj, const std::string &path,
                                   std::string_view key);
const std::string &as_string(const json::value &v, const std::string &path);
uint64_t as_uint(const json::value &v, const std::string &path, uint64_t min, uint64_t max);
const json::value &as_array(const json::value &v, const std::string &path, size_t min_size,
                            size_t max_size);

// A name made of [A-Za-z0-9] and the characters of `extra`, 1..max_len long.
std::string checked_name(const json::value &v, const std::string &path, size_t max_len,
                         std::string_view extra, const char *what);
// A PCI address, returned in canonical form.
std::string checked_pci(const json::value &v, const std::string &path);
// "xx:xx:xx:xx:xx:xx", unicast.
std::array<uint8_t, 6> checked_mac(const json::value &v, const std::string &path);
// Dotted decimal.
std::array<uint8_t, 4> checked_ipv4(const json::value &v, const std::string &path);

std::string mac_text(const std::array<uint8_t, 6> &m);
std::string ipv4_text(const std::array<uint8_t, 4> &a);

} // namespace softcomch::core::schema

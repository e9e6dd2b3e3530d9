// SPDX-License-Identifier: Apache-2.0
#include "core/topology_schema.hpp"

#include <charconv>
#include <cstdio>
#include <system_error>

#include "core/device.hpp"

namespace softcomch::core::schema {

[[noreturn]] void fail(const std::string &path, std::string what)
{
    throw schema_error{path, std::move(what)};
}

std::string member_path(const std::string &base, std::string_view key)
{
    return base + "." + std::string(key);
}

std::string index_path(const std::string &base, size_t i)
{
    return base + "[" + std::to_string(i) + "]";
}

void check_keys(const json::value &obj, const std::string &path,
                std::initializer_list<std::string_view> allowed)
{
    for (const auto &[key, v] : obj.items()) {
        (void)v;
        bool ok = false;
        for (std::string_view a : allowed)
            ok = ok || key == a;
        if (!ok) {
            std::string list;
            for (std::string_view a : allowed)
                list += (list.empty() ? "" : ", ") + std::string(a);
            fail(member_path(path, key),
                 "unknown member \"" + key + "\" (allowed here: " + list + ")");
        }
    }
}

const json::value &require_object(const json::value &v, const std::string &path)
{
    if (!v.is_object())
        fail(path, std::string("expected an object, found ") + v.type_name());
    return v;
}

const json::value *optional_member(const json::value &obj, std::string_view key)
{
    return obj.find(key);
}

const json::value &required_member(const json::value &obj, const std::string &path,
                                   std::string_view key)
{
    const json::value *v = obj.find(key);
    if (!v)
        fail(path, "missing required member \"" + std::string(key) + "\"");
    return *v;
}

const std::string &as_string(const json::value &v, const std::string &path)
{
    if (!v.is_string())
        fail(path, std::string("expected a string, found ") + v.type_name());
    return v.as_string();
}

uint64_t as_uint(const json::value &v, const std::string &path, uint64_t min, uint64_t max)
{
    if (!v.is_int())
        fail(path, std::string("expected an integer, found ") + v.type_name());
    int64_t i = v.as_int();
    if (i < 0 || static_cast<uint64_t>(i) < min || static_cast<uint64_t>(i) > max)
        fail(path, "value " + std::to_string(i) + " out of range [" + std::to_string(min) + ", " +
                       std::to_string(max) + "]");
    return static_cast<uint64_t>(i);
}

const json::value &as_array(const json::value &v, const std::string &path, size_t min_size,
                            size_t max_size)
{
    if (!v.is_array())
        fail(path, std::string("expected an array, found ") + v.type_name());
    if (v.size() < min_size)
        fail(path, "expected at least " + std::to_string(min_size) + " element(s)");
    if (v.size() > max_size)
        fail(path, "more than " + std::to_string(max_size) + " elements");
    return v;
}

namespace {

bool is_name_char(char c, std::string_view extra)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           extra.find(c) != std::string_view::npos;
}

} // namespace

std::string checked_name(const json::value &v, const std::string &path, size_t max_len,
                         std::string_view extra, const char *what)
{
    const std::string &s = as_string(v, path);
    if (s.empty() || s.size() > max_len)
        fail(path,
             std::string(what) + " must be 1 to " + std::to_string(max_len) + " characters long");
    for (char c : s)
        if (!is_name_char(c, extra))
            fail(path,
                 std::string(what) + " \"" + s +
                     "\" contains an invalid character (allowed: letters, digits" +
                     (extra.empty() ? std::string() : std::string(" and ") + std::string(extra)) +
                     ")");
    return s;
}

std::string checked_pci(const json::value &v, const std::string &path)
{
    const std::string &s = as_string(v, path);
    std::string canon;
    if (s.find('\0') != std::string::npos || !canonical_pci_addr(s.c_str(), canon))
        fail(path, "malformed PCI address \"" + s +
                       "\" (expected \"BB:DD.F\" or \"DDDD:BB:DD.F\", hexadecimal)");
    return canon;
}

std::array<uint8_t, 6> checked_mac(const json::value &v, const std::string &path)
{
    const std::string &s = as_string(v, path);
    std::array<uint8_t, 6> mac{};
    bool ok = s.size() == 17;
    for (size_t i = 0; ok && i < 6; ++i) {
        // Two hex digits, then ':' (from_chars takes no sign or prefix for an unsigned type).
        const char *first = s.data() + i * 3;
        const auto [end, ec] = std::from_chars(first, first + 2, mac[i], 16);
        ok = ec == std::errc() && end == first + 2 && (i == 5 || s[i * 3 + 2] == ':');
    }
    if (!ok)
        fail(path, "malformed MAC address \"" + s + "\" (expected \"xx:xx:xx:xx:xx:xx\")");
    if (mac[0] & 1)
        fail(path, "MAC address \"" + s + "\" is a multicast address");
    return mac;
}

std::array<uint8_t, 4> checked_ipv4(const json::value &v, const std::string &path)
{
    const std::string &s = as_string(v, path);
    std::array<uint8_t, 4> ip{};
    size_t pos = 0;
    for (size_t part = 0; part < 4; ++part) {
        size_t start = pos;
        unsigned val = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 3)
            val = val * 10 + static_cast<unsigned>(s[pos++] - '0');
        bool leading_zero = pos - start > 1 && s[start] == '0';
        if (pos == start || val > 255 || leading_zero ||
            (part < 3 && (pos >= s.size() || s[pos] != '.')))
            fail(path, "malformed IPv4 address \"" + s +
                           "\" (expected dotted decimal such as \"192.168.100.2\")");
        ip[part] = static_cast<uint8_t>(val);
        if (part < 3)
            ++pos;
    }
    if (pos != s.size())
        fail(path, "malformed IPv4 address \"" + s +
                       "\" (expected dotted decimal such as \"192.168.100.2\")");
    return ip;
}

std::string mac_text(const std::array<uint8_t, 6> &m)
{
    char buf[18];
    std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
                  m[5]);
    return buf;
}

std::string ipv4_text(const std::array<uint8_t, 4> &a)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
    return buf;
}

} // namespace softcomch::core::schema

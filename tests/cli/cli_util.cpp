// SPDX-License-Identifier: Apache-2.0
//
// The definitions of cli_util.hpp. The schemas below are written from DOCA's structured-tools
// contract (NVIDIA-DOCA/doca-skills, skills/doca-structured-tools-contract/SKILL.md), field by
// field; they are not derived from the tool's output.
#include "cli_util.hpp"

#include "build_tree.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string_view>

extern char **environ;

namespace sc_cli {

namespace {

const char *type_name(jt t)
{
    switch (t) {
    case jt::string:
        return "string";
    case jt::integer:
        return "integer";
    case jt::number:
        return "number";
    case jt::boolean:
        return "boolean";
    case jt::object:
        return "object";
    case jt::array:
        return "array";
    case jt::null:
        return "null";
    }
    return "?";
}

bool is(const json::value &v, jt t)
{
    switch (t) {
    case jt::string:
        return v.is_string();
    case jt::integer:
        return v.is_int();
    case jt::number:
        return v.is_number();
    case jt::boolean:
        return v.is_bool();
    case jt::object:
        return v.is_object();
    case jt::array:
        return v.is_array();
    case jt::null:
        return v.is_null();
    }
    return false;
}

std::string read_text(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::vector<jt> str{jt::string};
const std::vector<jt> str_or_null{jt::string, jt::null};
const std::vector<jt> num{jt::number};
const std::vector<jt> boolean{jt::boolean};
const std::vector<std::string> kinds{"PF", "VF", "SF"};
const std::vector<std::string> states{"active", "down", "unknown"};
const std::vector<std::string> bf_modes{"smartnic", "dpu", "switch"};

// (No std::regex: it trips g++ 12's -Wmaybe-uninitialized under ASan, see process_runner.hpp.)
bool digits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

bool hex(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0 || (c >= 'a' && c <= 'f');
    });
}

bool ident(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::islower(static_cast<unsigned char>(c)) != 0 ||
               std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
    });
}

} // namespace

std::vector<std::string> tool_env(const env_map &set, std::initializer_list<const char *> unset)
{
    std::vector<std::string> env;
    for (char **e = environ; *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const std::string name(entry.substr(0, entry.find('=')));
        if ((name.starts_with("SOFTCOMCH_") && name != "SOFTCOMCH_FABRIC" &&
             name != "SOFTCOMCH_TEST_BIN_DIR") ||
            set.count(name) != 0)
            continue;
        bool drop = false;
        for (const char *u : unset)
            drop = drop || name == u;
        if (!drop)
            env.emplace_back(entry);
    }
    for (const auto &[k, v] : set)
        env.push_back(k + "=" + v);
    return env;
}

std::string tool(const std::string &name)
{
    if (name == "doca_caps")
        return sc_test::bin_dir() + "/tools/doca_caps";
    return sc_test::bin_dir() + "/bin/" + name;
}

proc_result run(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                double timeout_s)
{
    return sc_test::run_process(argv, {.timeout_s = timeout_s, .env = &env});
}

proc_result sc(const std::vector<std::string> &args, const env_map &set)
{
    std::vector<std::string> argv{tool()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, tool_env(set));
}

json::value parse(const std::string &text)
{
    std::string error;
    json::value v = json::parse(text, &error);
    if (!error.empty())
        ADD_FAILURE() << "not JSON: " << error << "\n" << text;
    return v;
}

::testing::AssertionResult matches(const json::value &v, const std::vector<field> &schema,
                                   const std::string &where, const std::vector<std::string> &extra)
{
    if (!v.is_object())
        return ::testing::AssertionFailure()
               << where << " is a " << v.type_name() << ", not an object";
    for (const auto &f : schema) {
        const json::value *m = v.find(f.name);
        if (m == nullptr)
            return ::testing::AssertionFailure() << where << "." << f.name << " is missing";
        bool ok = false;
        for (jt t : f.types)
            ok = ok || is(*m, t);
        if (!ok) {
            std::string want;
            for (jt t : f.types)
                want += (want.empty() ? "" : " | ") + std::string(type_name(t));
            return ::testing::AssertionFailure()
                   << where << "." << f.name << " is a " << m->type_name() << ", not " << want;
        }
        if (m->is_string() && !f.allowed.empty()) {
            bool known = false;
            for (const auto &a : f.allowed)
                known = known || m->as_string() == a;
            if (!known)
                return ::testing::AssertionFailure() << where << "." << f.name << " = \""
                                                     << m->as_string() << "\" is not allowed";
        }
    }
    for (const auto &[key, value] : v.items()) {
        bool known = false;
        for (const auto &f : schema)
            known = known || f.name == key;
        for (const auto &e : extra)
            known = known || e == key;
        if (!known)
            return ::testing::AssertionFailure()
                   << where << "." << key << " is not a field of the schema";
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult all_match(const json::value &v, const std::vector<field> &schema,
                                     const std::string &where)
{
    if (!v.is_array())
        return ::testing::AssertionFailure() << where << " is not an array";
    for (size_t i = 0; i < v.size(); ++i)
        if (auto r = matches(v[i], schema, where + "[" + std::to_string(i) + "]"); !r)
            return r;
    return ::testing::AssertionSuccess();
}

bool iso8601(const std::string &s)
{
    // YYYY-MM-DDTHH:MM:SS[.fff](Z|+HH:MM|-HH:MM)
    if (s.size() < 20)
        return false;
    const std::string_view v(s);
    if (!digits(v.substr(0, 4)) || v[4] != '-' || !digits(v.substr(5, 2)) || v[7] != '-' ||
        !digits(v.substr(8, 2)) || v[10] != 'T' || !digits(v.substr(11, 2)) || v[13] != ':' ||
        !digits(v.substr(14, 2)) || v[16] != ':' || !digits(v.substr(17, 2)))
        return false;
    std::string_view rest = v.substr(19);
    if (rest.starts_with(".")) {
        size_t n = 1;
        while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n])))
            ++n;
        if (n == 1)
            return false;
        rest.remove_prefix(n);
    }
    return rest == "Z" ||
           (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest.substr(1, 2)) &&
            rest[3] == ':' && digits(rest.substr(4, 2)));
}

bool semver(const std::string &s)
{
    const size_t a = s.find('.'), b = s.find('.', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos)
        return false;
    const std::string_view v(s);
    return digits(v.substr(0, a)) && digits(v.substr(a + 1, b - a - 1)) && digits(v.substr(b + 1));
}

bool pci_address(const std::string &s)
{
    const std::string_view v(s);
    return v.size() == 12 && hex(v.substr(0, 4)) && v[4] == ':' && hex(v.substr(5, 2)) &&
           v[7] == ':' && hex(v.substr(8, 2)) && v[10] == '.' && v[11] >= '0' && v[11] <= '7';
}

// ---- doca-env --json ----

const std::vector<field> &doca_env_schema()
{
    static const std::vector<field> s{
        {"version", {jt::object}, {}},
        {"devices", {jt::array}, {}},
        {"libraries", {jt::array}, {}},
        {"sample_paths", {jt::array}, {}},
        {"drivers", {jt::object}, {}},
        {"hugepages", {jt::object}, {}},
        {"host_kind", str, {"host", "bluefield", "unknown"}},
        {"bf_mode", str_or_null, bf_modes},
    };
    return s;
}

const std::vector<field> &doca_env_version_schema()
{
    static const std::vector<field> s{{"pkg_config", str_or_null, {}},
                                      {"applications_version", str_or_null, {}},
                                      {"doca_caps", str_or_null, {}},
                                      {"bfb", str_or_null, {}},
                                      {"consistent", boolean, {}}};
    return s;
}

const std::vector<field> &doca_env_device_schema()
{
    static const std::vector<field> s{
        {"pcie_address", str, {}},           {"kind", str, kinds},   {"name", str, {}},
        {"representor_of", str_or_null, {}}, {"state", str, states}, {"mtu", num, {}}};
    return s;
}

const std::vector<field> &doca_env_library_schema()
{
    static const std::vector<field> s{
        {"pkg_config_name", str, {}}, {"installed", boolean, {}}, {"pc_path", str_or_null, {}}};
    return s;
}

const std::vector<field> &doca_env_sample_schema()
{
    static const std::vector<field> s{{"library", str, {}}, {"path", str, {}}};
    return s;
}

const std::vector<field> &doca_env_drivers_schema()
{
    static const std::vector<field> s{{"mlx5_core_loaded", boolean, {}},
                                      {"mlx5_ib_loaded", boolean, {}},
                                      {"kernel_version", str, {}}};
    return s;
}

const std::vector<field> &doca_env_hugepages_schema()
{
    static const std::vector<field> s{
        {"available_2m", num, {}}, {"available_1g", num, {}}, {"mount_point", str_or_null, {}}};
    return s;
}

// ---- capability-snapshot ----

const std::vector<field> &snapshot_schema()
{
    static const std::vector<field> s{{"snapshot_at", str, {}},
                                      {"doca_version", str, {}},
                                      {"host_kind", str, {"host", "bluefield"}},
                                      {"devices", {jt::array}, {}}};
    return s;
}

const std::vector<field> &snapshot_device_schema()
{
    static const std::vector<field> s{{"pcie_address", str, {}},
                                      {"library_capabilities", {jt::object}, {}}};
    return s;
}

// ---- collect-host-state / collect-dpu-state ----

const std::vector<field> &state_schema()
{
    static const std::vector<field> s{
        {"side", str, {"host", "dpu"}},    {"doca_version", str, {}},
        {"firmware_version", str, {}},     {"kernel_version", str, {}},
        {"mlx5_modules", {jt::array}, {}}, {"bf_mode", str_or_null, bf_modes},
        {"devices", {jt::array}, {}}};
    return s;
}

const std::vector<field> &state_device_schema()
{
    static const std::vector<field> s{{"pcie_address", str, {}},
                                      {"kind", str, kinds},
                                      {"state", str, states},
                                      {"mtu", num, {}},
                                      {"representor_of", str_or_null, {}}};
    return s;
}

// ---- version-matrix.json ----

const std::vector<field> &matrix_schema()
{
    static const std::vector<field> s{
        {"schema_version", str, {}}, {"generated_at", str, {}}, {"entries", {jt::array}, {}}};
    return s;
}

const std::vector<field> &matrix_entry_schema()
{
    static const std::vector<field> s{{"library", str, {}},
                                      {"capability", str, {}},
                                      {"display_name", str, {}},
                                      {"min_doca_version", str, {}},
                                      {"max_doca_version", str_or_null, {}},
                                      {"source_url", str, {}},
                                      {"source_quote", str, {}}};
    return s;
}

::testing::AssertionResult valid_doca_env(const json::value &doc)
{
    // The tool adds one member the schema has no field for, "softcomch" (docs/cli.md).
    if (auto r = matches(doc, doca_env_schema(), "doca-env", {"softcomch"}); !r)
        return r;
    if (auto r = matches(*doc.find("version"), doca_env_version_schema(), "version"); !r)
        return r;
    if (auto r = all_match(*doc.find("devices"), doca_env_device_schema(), "devices"); !r)
        return r;
    if (auto r = all_match(*doc.find("libraries"), doca_env_library_schema(), "libraries"); !r)
        return r;
    if (auto r = all_match(*doc.find("sample_paths"), doca_env_sample_schema(), "sample_paths"); !r)
        return r;
    if (auto r = matches(*doc.find("drivers"), doca_env_drivers_schema(), "drivers"); !r)
        return r;
    if (auto r = matches(*doc.find("hugepages"), doca_env_hugepages_schema(), "hugepages"); !r)
        return r;
    for (const auto &d : doc.find("devices")->elements())
        if (!pci_address(d.find("pcie_address")->as_string()))
            return ::testing::AssertionFailure()
                   << "devices: bad pcie_address " << d.find("pcie_address")->as_string();
    // bf_mode is null when host_kind is not bluefield.
    if (doc.find("host_kind")->as_string() != "bluefield" && !doc.find("bf_mode")->is_null())
        return ::testing::AssertionFailure() << "bf_mode is set while host_kind is not bluefield";
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult valid_snapshot(const json::value &doc)
{
    if (auto r = matches(doc, snapshot_schema(), "snapshot"); !r)
        return r;
    if (!iso8601(doc.find("snapshot_at")->as_string()))
        return ::testing::AssertionFailure()
               << "snapshot_at is not ISO-8601: " << doc.find("snapshot_at")->as_string();
    if (auto r = all_match(*doc.find("devices"), snapshot_device_schema(), "devices"); !r)
        return r;
    for (const auto &d : doc.find("devices")->elements()) {
        if (!pci_address(d.find("pcie_address")->as_string()))
            return ::testing::AssertionFailure() << "bad pcie_address";
        for (const auto &[lib, flags] : d.find("library_capabilities")->items()) {
            if (!flags.is_array())
                return ::testing::AssertionFailure() << lib << ": not a list of flags";
            for (const auto &f : flags.elements())
                if (!f.is_string())
                    return ::testing::AssertionFailure() << lib << ": a flag is not a string";
        }
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult valid_state(const json::value &doc, const std::string &side)
{
    if (auto r = matches(doc, state_schema(), "state"); !r)
        return r;
    if (doc.find("side")->as_string() != side)
        return ::testing::AssertionFailure() << "side is " << doc.find("side")->as_string();
    for (const auto &m : doc.find("mlx5_modules")->elements())
        if (!m.is_string())
            return ::testing::AssertionFailure() << "mlx5_modules holds a non-string";
    return all_match(*doc.find("devices"), state_device_schema(), "devices");
}

::testing::AssertionResult valid_matrix(const json::value &doc)
{
    if (auto r = matches(doc, matrix_schema(), "version-matrix"); !r)
        return r;
    if (!semver(doc.find("schema_version")->as_string()))
        return ::testing::AssertionFailure() << "schema_version is not semver";
    if (!iso8601(doc.find("generated_at")->as_string()))
        return ::testing::AssertionFailure() << "generated_at is not ISO-8601";
    if (auto r = all_match(*doc.find("entries"), matrix_entry_schema(), "entries"); !r)
        return r;
    for (const auto &e : doc.find("entries")->elements()) {
        const std::string cap = e.find("capability")->as_string();
        if (!semver(e.find("min_doca_version")->as_string()))
            return ::testing::AssertionFailure() << cap << ": min_doca_version is not semver";
        if (const auto *max = e.find("max_doca_version");
            max->is_string() && !semver(max->as_string()))
            return ::testing::AssertionFailure() << cap << ": max_doca_version is not semver";
        if (!e.find("source_url")->as_string().starts_with("https://"))
            return ::testing::AssertionFailure() << cap << ": source_url is not a URL";
        if (e.find("source_quote")->as_string().empty() ||
            e.find("display_name")->as_string().empty())
            return ::testing::AssertionFailure() << cap << ": empty quote or display name";
    }
    return ::testing::AssertionSuccess();
}

// ---- doca_caps' layout ----

::testing::AssertionResult doca_caps_layout(const std::string &text, bool rows_are_caps)
{
    std::istringstream lines(text);
    std::string line;
    size_t n = 0, rows = 0;
    bool in_block = false;
    while (std::getline(lines, line)) {
        ++n;
        if (line.starts_with("PCI: ") && pci_address(line.substr(5))) {
            in_block = false;
            continue;
        }
        if (line.size() > 4 && line.starts_with("    ") && ident(line.substr(4))) {
            in_block = true;
            continue;
        }
        const size_t end = line.find(' ', 8);
        if (!line.starts_with("        ") || end == std::string::npos ||
            !ident(std::string_view(line).substr(8, end - 8)))
            return ::testing::AssertionFailure()
                   << "line " << n << " is not doca_caps layout: '" << line << "'";
        ++rows;
        const std::string name = line.substr(8, end - 8);
        // The name padded to 46 characters: the value starts at column 54.
        if (line.size() <= 54 || line[54] == ' ' ||
            (name.size() < 46 && line.find_first_not_of(' ', end) != 54))
            return ::testing::AssertionFailure()
                   << "line " << n << ": the value does not start at column 54: '" << line << "'";
        if (rows_are_caps) {
            const std::string value = line.substr(54);
            if (!in_block)
                return ::testing::AssertionFailure() << "line " << n << ": a row outside a block";
            // A limit of a library the device lacks prints "unsupported" (its query answered
            // DOCA_ERROR_NOT_SUPPORTED), as its *_is_supported row does.
            if (name.ends_with("supported") ? value != "supported" && value != "unsupported"
                                            : !digits(value) && value != "unsupported")
                return ::testing::AssertionFailure()
                       << "line " << n << ": '" << value << "' for " << name;
        }
    }
    if (rows == 0)
        return ::testing::AssertionFailure() << "no rows";
    return ::testing::AssertionSuccess();
}

std::map<std::string, std::string> block_rows(const std::string &text, const std::string &pci,
                                              const std::string &block)
{
    std::map<std::string, std::string> out;
    std::istringstream lines(text);
    std::string line;
    bool in_dev = false, in_block = false;
    while (std::getline(lines, line)) {
        if (line.starts_with("PCI: ")) {
            in_dev = line == "PCI: " + pci;
            in_block = false;
        } else if (line.starts_with("    ") && !line.starts_with("        ")) {
            in_block = in_dev && line.substr(4) == block;
        } else if (in_block && line.starts_with("        ")) {
            const std::string rest = line.substr(8);
            const size_t space = rest.find(' ');
            const std::string name = rest.substr(0, space);
            const size_t value = rest.find_first_not_of(' ', space);
            out[name] = value == std::string::npos ? "" : rest.substr(value);
        }
    }
    return out;
}

std::vector<declared_function> declared_functions(const std::string &header)
{
    // A prototype begins on a line starting with DOCA_STABLE, DOCA_EXPERIMENTAL or
    // DOCA_DEPRECATED and ends at ';'; the name is the identifier before its first '('.
    std::istringstream lines(
        read_text(std::string(sc_test::build_tree::source_dir) + "/include/" + header));
    std::vector<declared_function> out;
    std::string line, decl;
    bool in_decl = false;
    while (std::getline(lines, line)) {
        if (!in_decl &&
            (line.starts_with("DOCA_STABLE ") || line.starts_with("DOCA_EXPERIMENTAL ") ||
             line.starts_with("DOCA_DEPRECATED "))) {
            in_decl = true;
            decl.clear();
        }
        if (!in_decl)
            continue;
        decl += line + " ";
        if (line.find(';') == std::string::npos)
            continue;
        in_decl = false;
        const size_t paren = decl.find('(');
        size_t end = paren;
        while (end > 0 && decl[end - 1] == ' ')
            --end;
        size_t start = end;
        while (start > 0 && (std::isalnum(static_cast<unsigned char>(decl[start - 1])) ||
                             decl[start - 1] == '_'))
            --start;
        if (paren != std::string::npos && start < end)
            out.push_back({decl.substr(start, end - start),
                           decl.substr(0, start).find("doca_error_t") != std::string::npos});
    }
    return out;
}

std::vector<std::pair<std::string, int>> error_enumerators()
{
    // "\tDOCA_ERROR_NOT_PERMITTED = 2, /**< ... */"
    std::istringstream lines(
        read_text(std::string(sc_test::build_tree::source_dir) + "/include/doca_error.h"));
    std::vector<std::pair<std::string, int>> out;
    std::string line;
    while (std::getline(lines, line)) {
        const size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos)
            continue;
        if (line.compare(start, 12, "DOCA_SUCCESS") != 0 &&
            line.compare(start, 11, "DOCA_ERROR_") != 0)
            continue;
        const size_t eq = line.find(" = ", start);
        if (eq == std::string::npos)
            continue;
        const std::string name = line.substr(start, line.find_first_of(" =", start) - start);
        size_t v = eq + 3, e = v;
        while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e])))
            ++e;
        if (e > v)
            out.emplace_back(name, std::stoi(line.substr(v, e - v)));
    }
    return out;
}

} // namespace sc_cli

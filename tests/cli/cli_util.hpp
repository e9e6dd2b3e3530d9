// SPDX-License-Identifier: Apache-2.0
//
// For the tests of softcomch's report commands (caps, env, collect-state, version-matrix,
// explain) and of DOCA's structured-tools entry points: running the tool with a controlled
// environment, reading its JSON with the library's parser (src/common/json.hpp), checking
// objects against the contract's schemas field by field, and checking doca_caps' text layout.
// Definitions in cli_util.cpp (tests/cli/CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "process_runner.hpp"

namespace sc_cli {

namespace json = softcomch::json;
using sc_test::proc_result;

// The child's environment: ours without any SOFTCOMCH_* variable but SOFTCOMCH_FABRIC (the
// test's private fabric) and without the names in `unset`, plus `set`.
using env_map = std::map<std::string, std::string>;
std::vector<std::string> tool_env(const env_map &set = {},
                                  std::initializer_list<const char *> unset = {});

// <build>/bin/softcomch, <build>/bin/<alias>, <build>/tools/doca_caps.
std::string tool(const std::string &name = "softcomch");

// Runs argv with exactly `env`.
proc_result run(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                double timeout_s = 60);
// softcomch ARGS in tool_env(set).
proc_result sc(const std::vector<std::string> &args, const env_map &set = {});

// Parses a command's stdout; a parse error fails the test (ADD_FAILURE) and gives null.
json::value parse(const std::string &text);

// ---- schemas ----

enum class jt { string, integer, number, boolean, object, array, null };

struct field {
    std::string name;
    std::vector<jt> types;            // any of these
    std::vector<std::string> allowed; // for strings: the only values allowed (empty: any)
};

// `v` is an object with exactly the fields of `schema` (plus those named in `extra`), each of
// one of its types and, for enumerated strings, one of its values. `where` names it in messages.
::testing::AssertionResult matches(const json::value &v, const std::vector<field> &schema,
                                   const std::string &where,
                                   const std::vector<std::string> &extra = {});
// Every element of the array `v` matches `schema`.
::testing::AssertionResult all_match(const json::value &v, const std::vector<field> &schema,
                                     const std::string &where);

// "2026-12-01T14:03:59Z" (ISO-8601, UTC or with an offset).
bool iso8601(const std::string &s);
// "X.Y.Z" with decimal fields.
bool semver(const std::string &s);
// "0000:b1:00.0".
bool pci_address(const std::string &s);

// ---- the contract's schemas (skills/doca-structured-tools-contract/SKILL.md) ----

const std::vector<field> &doca_env_schema();
const std::vector<field> &doca_env_version_schema();
const std::vector<field> &doca_env_device_schema();
const std::vector<field> &doca_env_library_schema();
const std::vector<field> &doca_env_sample_schema();
const std::vector<field> &doca_env_drivers_schema();
const std::vector<field> &doca_env_hugepages_schema();
const std::vector<field> &snapshot_schema();
const std::vector<field> &snapshot_device_schema();
const std::vector<field> &state_schema();
const std::vector<field> &state_device_schema();
const std::vector<field> &matrix_schema();
const std::vector<field> &matrix_entry_schema();

// A doca-env / capability-snapshot / collect-state / version-matrix document, checked all the
// way down (nested objects and arrays included).
::testing::AssertionResult valid_doca_env(const json::value &doc);
::testing::AssertionResult valid_snapshot(const json::value &doc);
::testing::AssertionResult valid_state(const json::value &doc, const std::string &side);
::testing::AssertionResult valid_matrix(const json::value &doc);

// ---- doca_caps' text layout ----

// Every line is "PCI: <address>", a library or representor name at 4 spaces, or a row at 8
// spaces whose name is padded to 46 characters (the value starts at column 54). Booleans read
// supported / unsupported where `rows_are_caps`.
::testing::AssertionResult doca_caps_layout(const std::string &text, bool rows_are_caps);

// The rows of one block: {name -> value} of "PCI: <pci>" / "    <block>" in doca_caps text.
std::map<std::string, std::string> block_rows(const std::string &text, const std::string &pci,
                                              const std::string &block);

// The public functions a header of include/ declares (DOCA_STABLE / DOCA_EXPERIMENTAL /
// DOCA_DEPRECATED prototypes), in order, and whether each returns a doca_error_t.
struct declared_function {
    std::string name;
    bool returns_error = false;
};
std::vector<declared_function> declared_functions(const std::string &header);
// The enumerators of doca_error_t in include/doca_error.h: name -> value.
std::vector<std::pair<std::string, int>> error_enumerators();

} // namespace sc_cli

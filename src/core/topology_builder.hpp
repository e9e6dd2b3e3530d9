// SPDX-License-Identifier: Apache-2.0
//
// Builds a topology from a parsed topology document (docs/topology.md): every member checked
// against the schema (topology_schema.hpp), every default derived (names, VUIDs, MACs, vHCA ids,
// representor names), every uniqueness rule enforced. topology::from_json_text() is its caller.
#pragma once

#include <memory>
#include <string>

#include "common/json.hpp"
#include "core/topology.hpp"

namespace softcomch::core {

// The machine `doc` describes. Throws schema::schema_error (topology_schema.hpp) naming the
// first offending value; `origin` becomes topology::origin().
std::unique_ptr<topology> build_topology(const json::value &doc, const std::string &origin);

} // namespace softcomch::core

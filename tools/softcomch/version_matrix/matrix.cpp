// SPDX-License-Identifier: Apache-2.0
#include "matrix.hpp"

#include <cstdlib>

namespace softcomch::tools::version_matrix {

namespace json = softcomch::json;

const std::vector<entry> &entries()
{
    static const std::vector<entry> rows = [] {
        std::vector<entry> r;
        add_feature_rows(r);
        add_comch_rows(r);
        add_predecessor_rows(r);
        add_engine_rows(r);
        return r;
    }();
    return rows;
}

json::value document(const std::vector<entry> &rows)
{
    json::value list = json::value::array();
    for (const auto &e : rows)
        list.push_back(json::value::object()
                           .set("library", e.library)
                           .set("capability", e.capability)
                           .set("display_name", e.display_name)
                           .set("min_doca_version", e.min_doca_version)
                           .set("max_doca_version", e.max_doca_version
                                                        ? json::value(*e.max_doca_version)
                                                        : json::value())
                           .set("source_url", e.source_url)
                           .set("source_quote", e.source_quote));
    return json::value::object()
        .set("schema_version", schema_version)
        .set("generated_at", generated_at)
        .set("entries", std::move(list));
}

int compare_versions(const std::string &a, const std::string &b, int fields)
{
    const char *p = a.c_str(), *q = b.c_str();
    for (int field = 0; field < fields; ++field) {
        char *pe = nullptr, *qe = nullptr;
        const long x = std::strtol(p, &pe, 10), y = std::strtol(q, &qe, 10);
        if (x != y)
            return x < y ? -1 : 1;
        p = *pe == '.' ? pe + 1 : pe;
        q = *qe == '.' ? qe + 1 : qe;
    }
    return 0;
}

bool available_in(const entry &row, const std::string &release)
{
    return compare_versions(row.min_doca_version, release, 2) <= 0 &&
           (!row.max_doca_version || compare_versions(release, *row.max_doca_version, 2) <= 0);
}

} // namespace softcomch::tools::version_matrix

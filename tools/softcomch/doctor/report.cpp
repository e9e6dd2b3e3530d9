// SPDX-License-Identifier: Apache-2.0
//
// The doctor's report: the checks' lines as text (one per check, details indented, a count last)
// or as one JSON object (docs/cli.md, "softcomch doctor").
#include <algorithm>
#include <cstdio>

#include "doctor.hpp"

namespace softcomch::tools::doctor {

const char *verdict_name(verdict v) noexcept
{
    switch (v) {
    case verdict::ok:
        return "ok";
    case verdict::warn:
        return "warn";
    case verdict::fail:
        return "FAIL";
    }
    return "?";
}

check_result &report::add(verdict v, std::string check, std::string finding, std::string fix)
{
    checks.push_back({v, std::move(check), std::move(finding), std::move(fix), {}});
    return checks.back();
}

size_t report::count(verdict v) const
{
    return size_t(std::count_if(checks.begin(), checks.end(),
                                [v](const check_result &c) { return c.status == v; }));
}

void print_text(const report &r)
{
    constexpr int check_width = 19;
    for (const auto &c : r.checks) {
        std::printf("%-5s %-*s %s", verdict_name(c.status), check_width, c.check.c_str(),
                    c.finding.c_str());
        if (c.status != verdict::ok && !c.fix.empty())
            std::printf(" -- fix: %s", c.fix.c_str());
        std::printf("\n");
        for (const auto &d : c.details)
            std::printf("%*s%s\n", 6 + check_width + 1, "", d.c_str());
    }
    std::printf("%zu ok, %zu warn, %zu FAIL\n", r.count(verdict::ok), r.count(verdict::warn),
                r.count(verdict::fail));
}

void print_json(const report &r)
{
    json::value checks = json::value::array();
    for (const auto &c : r.checks) {
        json::value j = json::value::object();
        j.set("status", verdict_name(c.status)).set("check", c.check).set("finding", c.finding);
        if (c.status != verdict::ok && !c.fix.empty())
            j.set("fix", c.fix);
        checks.push_back(std::move(j));
    }
    json::value doc = json::value::object();
    const bool failed = r.count(verdict::fail) != 0;
    doc.set("status", failed ? "FAIL" : (r.count(verdict::warn) ? "warn" : "ok"));
    doc.set("ok", r.count(verdict::ok))
        .set("warn", r.count(verdict::warn))
        .set("fail", r.count(verdict::fail));
    for (const auto &[key, value] : r.facts.items())
        doc.set(key, value);
    doc.set("checks", std::move(checks));
    std::printf("%s\n", json::dump(doc, 2).c_str());
}

} // namespace softcomch::tools::doctor

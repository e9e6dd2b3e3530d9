// SPDX-License-Identifier: Apache-2.0
#include "common/near_name.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace softcomch {

namespace {

bool is_space(char c)
{
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}

bool equal_ignoring_case(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

} // namespace

size_t name_distance(std::string_view a, std::string_view b)
{
    // Three rows of the dynamic programme: the one before the previous is needed for a
    // transposition.
    const size_t n = b.size();
    std::vector<size_t> before(n + 1), prev(n + 1), cur(n + 1);
    for (size_t j = 0; j <= n; ++j)
        prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= n; ++j) {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        std::swap(before, prev);
        std::swap(prev, cur);
    }
    return prev[n];
}

name_likeness compare_names(std::string_view wanted, std::string_view have)
{
    name_likeness r;
    r.distance = name_distance(wanted, have);
    if (r.distance == 0)
        return r;
    if (equal_ignoring_case(wanted, have)) {
        r.how = name_likeness::case_only;
        return r;
    }
    const std::string_view tw = trimmed(wanted), th = trimmed(have);
    if (!tw.empty() && (tw.size() != wanted.size() || th.size() != have.size()) &&
        equal_ignoring_case(tw, th)) {
        r.how = name_likeness::spaces;
        return r;
    }
    // Edits under a third of the longer name: names of up to 3 characters are never typos of
    // each other, up to 6 one edit apart at most (two 3-letter names 2 edits apart share one
    // letter: a coincidence, not a typo).
    const size_t longer = std::max(wanted.size(), have.size());
    if (r.distance <= 2 && r.distance * 3 < longer)
        r.how = name_likeness::typo;
    return r;
}

std::string name_likeness::describe() const
{
    switch (how) {
    case case_only:
        return "differs only in case";
    case spaces:
        return "differs in leading or trailing spaces";
    case typo:
        return std::to_string(distance) + (distance == 1 ? " character" : " characters") + " apart";
    case different:
        break;
    }
    return "different";
}

} // namespace softcomch

// SPDX-License-Identifier: Apache-2.0
//
// "Did you mean": how close a name someone asked for is to a name that exists. Used by the
// diagnostics of a client that does not find its server (src/comch/diagnostics.cpp) and by
// `softcomch doctor --client` (tools/softcomch/doctor/client.cpp), so that both call the same
// names near for the same reason.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/visibility.hpp"

namespace softcomch {

// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions of
// two neighbouring characters each count one.
SOFTCOMCH_API size_t name_distance(std::string_view a, std::string_view b);

// How `have` differs from `wanted`, when it is near enough to be what was meant.
struct name_likeness {
    enum kind {
        different, // not near (or equal)
        case_only, // equal but for upper/lower case
        spaces,    // equal but for leading or trailing white space (case too, maybe)
        typo,      // a few characters apart (name_distance <= 2, and under a third of the name)
    };
    kind how = different;
    size_t distance = 0; // name_distance(wanted, have)
    bool near() const noexcept { return how != different; }
    // "differs only in case", "differs in leading or trailing spaces", "1 character apart".
    SOFTCOMCH_API std::string describe() const;
};
SOFTCOMCH_API name_likeness compare_names(std::string_view wanted, std::string_view have);

} // namespace softcomch

// SPDX-License-Identifier: Apache-2.0
//
// The error-code table: every code has its enumerator name and a description, values outside
// the enum give "unrecognized error code". The C entry points (src/capi/common/error.cpp) are
// compiled into this test so the exact exported functions are covered without libdoca_common.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "common/error_names.hpp"

#include "capi/common/error.cpp" // NOLINT: the thunks under test, white-box

namespace {

struct expected {
    doca_error_t code;
    const char *name;
};

// Written out by hand (not generated from the table) so a typo in the table is caught.
constexpr expected all_codes[] = {
    {DOCA_SUCCESS, "DOCA_SUCCESS"},
    {DOCA_ERROR_UNKNOWN, "DOCA_ERROR_UNKNOWN"},
    {DOCA_ERROR_NOT_PERMITTED, "DOCA_ERROR_NOT_PERMITTED"},
    {DOCA_ERROR_IN_USE, "DOCA_ERROR_IN_USE"},
    {DOCA_ERROR_NOT_SUPPORTED, "DOCA_ERROR_NOT_SUPPORTED"},
    {DOCA_ERROR_AGAIN, "DOCA_ERROR_AGAIN"},
    {DOCA_ERROR_INVALID_VALUE, "DOCA_ERROR_INVALID_VALUE"},
    {DOCA_ERROR_NO_MEMORY, "DOCA_ERROR_NO_MEMORY"},
    {DOCA_ERROR_INITIALIZATION, "DOCA_ERROR_INITIALIZATION"},
    {DOCA_ERROR_TIME_OUT, "DOCA_ERROR_TIME_OUT"},
    {DOCA_ERROR_SHUTDOWN, "DOCA_ERROR_SHUTDOWN"},
    {DOCA_ERROR_CONNECTION_RESET, "DOCA_ERROR_CONNECTION_RESET"},
    {DOCA_ERROR_CONNECTION_ABORTED, "DOCA_ERROR_CONNECTION_ABORTED"},
    {DOCA_ERROR_CONNECTION_INPROGRESS, "DOCA_ERROR_CONNECTION_INPROGRESS"},
    {DOCA_ERROR_NOT_CONNECTED, "DOCA_ERROR_NOT_CONNECTED"},
    {DOCA_ERROR_NO_LOCK, "DOCA_ERROR_NO_LOCK"},
    {DOCA_ERROR_NOT_FOUND, "DOCA_ERROR_NOT_FOUND"},
    {DOCA_ERROR_IO_FAILED, "DOCA_ERROR_IO_FAILED"},
    {DOCA_ERROR_BAD_STATE, "DOCA_ERROR_BAD_STATE"},
    {DOCA_ERROR_UNSUPPORTED_VERSION, "DOCA_ERROR_UNSUPPORTED_VERSION"},
    {DOCA_ERROR_OPERATING_SYSTEM, "DOCA_ERROR_OPERATING_SYSTEM"},
    {DOCA_ERROR_DRIVER, "DOCA_ERROR_DRIVER"},
    {DOCA_ERROR_UNEXPECTED, "DOCA_ERROR_UNEXPECTED"},
    {DOCA_ERROR_ALREADY_EXIST, "DOCA_ERROR_ALREADY_EXIST"},
    {DOCA_ERROR_FULL, "DOCA_ERROR_FULL"},
    {DOCA_ERROR_EMPTY, "DOCA_ERROR_EMPTY"},
    {DOCA_ERROR_IN_PROGRESS, "DOCA_ERROR_IN_PROGRESS"},
    {DOCA_ERROR_TOO_BIG, "DOCA_ERROR_TOO_BIG"},
    {DOCA_ERROR_AUTHENTICATION, "DOCA_ERROR_AUTHENTICATION"},
    {DOCA_ERROR_BAD_CONFIG, "DOCA_ERROR_BAD_CONFIG"},
    {DOCA_ERROR_SKIPPED, "DOCA_ERROR_SKIPPED"},
};
static_assert(sizeof(all_codes) / sizeof(all_codes[0]) == 31);

TEST(ErrorNames, EveryCodeHasItsEnumeratorName)
{
    for (int i = 0; i < 31; ++i) {
        EXPECT_EQ(int(all_codes[i].code), i);
        EXPECT_STREQ(softcomch::error_name(all_codes[i].code), all_codes[i].name);
        EXPECT_STREQ(doca_error_get_name(all_codes[i].code), all_codes[i].name);
    }
}

TEST(ErrorNames, EveryCodeHasADistinctShortDescription)
{
    std::set<std::string> seen;
    for (const expected &e : all_codes) {
        const char *d = doca_error_get_descr(e.code);
        ASSERT_NE(d, nullptr);
        EXPECT_STREQ(d, softcomch::error_descr(e.code));
        EXPECT_GT(std::strlen(d), 3u) << e.name;
        EXPECT_LT(std::strlen(d), 60u) << e.name;
        EXPECT_STRNE(d, "unrecognized error code") << e.name;
        EXPECT_TRUE(seen.insert(d).second) << "duplicate description for " << e.name;
    }
}

TEST(ErrorNames, DescriptionsUsersSearchForMatchDoca)
{
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_INVALID_VALUE), "Invalid input");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_DRIVER), "DOCA Driver call failure");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_UNKNOWN), "Unknown error");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_NOT_PERMITTED), "Operation not permitted");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_AGAIN),
                 "Resource temporarily unavailable, try again");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_BAD_STATE), "Bad State");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_NOT_CONNECTED), "Not Connected");
    EXPECT_STREQ(doca_error_get_descr(DOCA_ERROR_CONNECTION_ABORTED), "Connection aborted");
}

// A C caller may pass any int; C++ may not even hold a doca_error_t outside the enum's range
// (0..31: loading one is undefined, and UBSan's enum check stops the process), so the values
// past it go through the raw-value functions the C thunks use, and through the public functions
// from C (tests/api/test_headers_c.c, "Enum arguments outside their enum").
TEST(ErrorNames, OutOfRangeValuesAreUnrecognized)
{
    const auto unknown_inside_range = static_cast<doca_error_t>(31);
    EXPECT_STREQ(doca_error_get_name(unknown_inside_range), "unrecognized error code");
    EXPECT_STREQ(doca_error_get_descr(unknown_inside_range), "unrecognized error code");
    EXPECT_STREQ(softcomch::error_name(unknown_inside_range), "unrecognized error code");
    for (int32_t v : {31, 32, 100, 1 << 20, -1, -31, int32_t(0x7fffffff), int32_t(0x80000000u)}) {
        EXPECT_STREQ(softcomch::error_name(v), "unrecognized error code") << v;
        EXPECT_STREQ(softcomch::error_descr(v), "unrecognized error code") << v;
    }
}

TEST(ErrorNames, StringsAreStatic)
{
    EXPECT_EQ(doca_error_get_name(DOCA_ERROR_TOO_BIG), doca_error_get_name(DOCA_ERROR_TOO_BIG));
    EXPECT_EQ(doca_error_get_descr(DOCA_ERROR_TOO_BIG), doca_error_get_descr(DOCA_ERROR_TOO_BIG));
}

} // namespace

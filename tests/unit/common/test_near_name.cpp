// SPDX-License-Identifier: Apache-2.0
//
// "Did you mean" (src/common/near_name.hpp): which names are near, and how they are described.
#include <gtest/gtest.h>

#include "common/near_name.hpp"

using softcomch::compare_names;
using softcomch::name_distance;
using softcomch::name_likeness;

TEST(NearName, Distance)
{
    EXPECT_EQ(name_distance("", ""), 0u);
    EXPECT_EQ(name_distance("abc", ""), 3u);
    EXPECT_EQ(name_distance("", "abc"), 3u);
    EXPECT_EQ(name_distance("server", "sever"), 1u);   // a deletion
    EXPECT_EQ(name_distance("server", "servers"), 1u); // an insertion
    EXPECT_EQ(name_distance("server", "servor"), 1u);  // a substitution
    EXPECT_EQ(name_distance("server", "sevrer"), 1u);  // a transposition
    EXPECT_EQ(name_distance("kitten", "sitting"), 3u);
}

TEST(NearName, KindsOfNear)
{
    const std::string name = "comch_ctrl_path_server";
    EXPECT_EQ(compare_names(name, name).how, name_likeness::different) << "equal is not near";
    EXPECT_EQ(compare_names(name, "Comch_Ctrl_Path_Server").how, name_likeness::case_only);
    EXPECT_EQ(compare_names(name, name + " ").how, name_likeness::spaces);
    EXPECT_EQ(compare_names(name + "\n", name).how, name_likeness::spaces);
    EXPECT_EQ(compare_names(" " + name, "COMCH_CTRL_PATH_SERVER").how, name_likeness::spaces);
    EXPECT_EQ(compare_names(name, "comch_ctrl_path_sever").how, name_likeness::typo);
    EXPECT_EQ(compare_names(name, "comch_ctrl_path_srever").how, name_likeness::typo);
    EXPECT_EQ(compare_names(name, "comch_ctrl_pth_sever").how, name_likeness::typo);
    EXPECT_EQ(compare_names(name, "comch_data_path_server").how, name_likeness::different)
        << "4 edits is another name";
    EXPECT_EQ(compare_names(name, "other").how, name_likeness::different);
}

TEST(NearName, ShortNamesAreRarelyNear)
{
    EXPECT_FALSE(compare_names("x", "y").near());
    EXPECT_FALSE(compare_names("ab", "ac").near());
    EXPECT_FALSE(compare_names("abc", "abd").near());
    EXPECT_TRUE(compare_names("abcd", "abce").near());
    EXPECT_FALSE(compare_names("abcdef", "abcfed").near()) << "2 edits in 6 characters";
    EXPECT_TRUE(compare_names("x", "X").near()) << "case is near at any length";
    EXPECT_TRUE(compare_names("x", "x ").near()) << "so are spaces";
    EXPECT_FALSE(compare_names(" ", "").near());
}

TEST(NearName, Descriptions)
{
    EXPECT_EQ(compare_names("srv", "SRV").describe(), "differs only in case");
    EXPECT_EQ(compare_names("srv", "srv ").describe(), "differs in leading or trailing spaces");
    EXPECT_EQ(compare_names("server", "sever").describe(), "1 character apart");
    EXPECT_EQ(compare_names("long_server", "lnog_srever").describe(), "2 characters apart");
}

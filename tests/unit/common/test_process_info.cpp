// SPDX-License-Identifier: Apache-2.0
//
// common/process_info.hpp (what /proc says of a process, for the live-figures file's staleness
// check) and the text helpers of common/live_layout.hpp.
#include "common/process_info.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "common/live_layout.hpp"

namespace {

using softcomch::process_stat;

TEST(ProcessInfo, ParsesStatWithAnAwkwardCommandName)
{
    // Field 2 may hold spaces and parentheses; field 22 is the start time.
    const std::string text = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 "
                             "1 0 987654321 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0\n";
    process_stat st;
    ASSERT_TRUE(softcomch::parse_process_stat(text, st));
    EXPECT_EQ(st.state, 'S');
    EXPECT_EQ(st.start_time, 987654321u);
}

TEST(ProcessInfo, RefusesWhatLinuxDoesNotWrite)
{
    process_stat st;
    st.state = 'x';
    for (const char *bad : {"", "1 (x", "1 x) S 1", "1 (x) S 1 2 3", "1 (x)S 1",
                            "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12a 0"})
        EXPECT_FALSE(softcomch::parse_process_stat(bad, st)) << bad;
    EXPECT_EQ(st.state, 'x') << "untouched on failure";
}

TEST(ProcessInfo, ReadsThisProcessAndTellsAChildsStartTime)
{
    process_stat self;
    ASSERT_TRUE(softcomch::read_process_stat(0, self));
    EXPECT_EQ(self.state, 'R');
    EXPECT_GT(self.start_time, 0u);
    process_stat by_pid;
    ASSERT_TRUE(softcomch::read_process_stat(int(::getpid()), by_pid));
    EXPECT_EQ(by_pid.start_time, self.start_time);
    EXPECT_EQ(softcomch::process_comm(0), softcomch::process_comm(int(::getpid())));
    EXPECT_NE(softcomch::process_cmdline(0, 200).find("unit_common_test_process_info"),
              std::string::npos);
    EXPECT_LE(softcomch::process_cmdline(0, 5).size(), 5u);

    // A zombie still has a stat, in state Z; once reaped, none.
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    process_stat z;
    for (int i = 0; i < 10000 && !(softcomch::read_process_stat(child, z) && z.state == 'Z'); ++i)
        ::usleep(100); // bounded wait for the child to end
    EXPECT_EQ(z.state, 'Z');
    EXPECT_GE(z.start_time, self.start_time);
    int st = 0;
    ASSERT_EQ(::waitpid(child, &st, 0), child);
    EXPECT_FALSE(softcomch::read_process_stat(child, z));
    EXPECT_EQ(softcomch::process_comm(child), "");
    EXPECT_FALSE(softcomch::read_process_stat(-1, z));
}

TEST(LiveLayout, TextFieldsAreTruncatedAndTerminated)
{
    char field[8];
    softcomch::live::put_text(field, "abc");
    EXPECT_EQ(softcomch::live::get_text(field), "abc");
    softcomch::live::put_text(field, "0123456789");
    EXPECT_EQ(softcomch::live::get_text(field), "0123456");
    EXPECT_EQ(field[7], '\0');
    char full[4] = {'w', 'x', 'y', 'z'}; // no NUL: a reader never runs past the field
    EXPECT_EQ(softcomch::live::get_text(full), "wxyz");
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
//
// doca_argp through the public header and the DOCA libraries only: flag forms and types, unknown
// and missing flags, mandatory/single-use/singular rules, callbacks, --help/--version (in a
// child process: they exit), -l/--sdk-log-level, commands, the DPDK split, the logger callback
// and JSON configuration files.
#define DOCA_ALLOW_EXPERIMENTAL_API
#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct config {
    std::string str;
    int num = 0;
    bool flag = false;
    double dbl = 0;
    std::string obj;
    std::vector<std::string> multi;
    std::vector<std::string> cmds;
    int validations = 0;
    int str_calls = 0;
    doca_error_t validation_result = DOCA_SUCCESS;
};

doca_error_t str_cb(void *value, void *cfg)
{
    auto *c = static_cast<config *>(cfg);
    c->str = static_cast<char *>(value);
    ++c->str_calls;
    return DOCA_SUCCESS;
}
doca_error_t int_cb(void *value, void *cfg)
{
    static_cast<config *>(cfg)->num = *static_cast<int *>(value);
    return DOCA_SUCCESS;
}
doca_error_t bool_cb(void *value, void *cfg)
{
    static_cast<config *>(cfg)->flag = *static_cast<bool *>(value);
    return DOCA_SUCCESS;
}
doca_error_t double_cb(void *value, void *cfg)
{
    static_cast<config *>(cfg)->dbl = *static_cast<double *>(value);
    return DOCA_SUCCESS;
}
doca_error_t obj_cb(void *value, void *cfg)
{
    static_cast<config *>(cfg)->obj = static_cast<const char *>(value);
    return DOCA_SUCCESS;
}
doca_error_t multi_cb(void *value, void *cfg)
{
    static_cast<config *>(cfg)->multi.emplace_back(static_cast<char *>(value));
    return DOCA_SUCCESS;
}
doca_error_t refuse_cb(void *, void *)
{
    return DOCA_ERROR_BAD_CONFIG;
}
doca_error_t validate_cb(void *cfg)
{
    auto *c = static_cast<config *>(cfg);
    ++c->validations;
    return c->validation_result;
}
doca_error_t send_cmd_cb(void *cfg)
{
    static_cast<config *>(cfg)->cmds.emplace_back("send");
    return DOCA_SUCCESS;
}
doca_error_t fast_cmd_cb(void *cfg)
{
    static_cast<config *>(cfg)->cmds.emplace_back("fast");
    return DOCA_SUCCESS;
}

doca_argp_param *make_param(const char *short_name, const char *long_name, doca_argp_type type,
                            doca_argp_param_cb_t cb, const char *arguments = nullptr,
                            const char *description = "a test flag")
{
    doca_argp_param *p = nullptr;
    EXPECT_EQ(doca_argp_param_create(&p), DOCA_SUCCESS);
    if (short_name)
        doca_argp_param_set_short_name(p, short_name);
    if (long_name)
        doca_argp_param_set_long_name(p, long_name);
    if (arguments)
        doca_argp_param_set_arguments(p, arguments);
    if (description)
        doca_argp_param_set_description(p, description);
    if (cb)
        doca_argp_param_set_callback(p, cb);
    doca_argp_param_set_type(p, type);
    return p;
}

class Argp : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(doca_argp_init("test_prog", &cfg_), DOCA_SUCCESS); }
    void TearDown() override
    {
        (void)doca_argp_destroy();
        doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO);
    }

    void register_basic()
    {
        ASSERT_EQ(doca_argp_register_param(
                      make_param("s", "str", DOCA_ARGP_TYPE_STRING, str_cb, "<text>", "Some text")),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_argp_register_param(make_param("i", "int", DOCA_ARGP_TYPE_INT, int_cb)),
                  DOCA_SUCCESS);
        ASSERT_EQ(
            doca_argp_register_param(make_param("b", "bool", DOCA_ARGP_TYPE_BOOLEAN, bool_cb)),
            DOCA_SUCCESS);
        ASSERT_EQ(doca_argp_register_param(
                      make_param(nullptr, "double", DOCA_ARGP_TYPE_DOUBLE, double_cb)),
                  DOCA_SUCCESS);
    }

    doca_error_t start(std::vector<std::string> args)
    {
        args.insert(args.begin(), "./bin/test_prog");
        storage_ = args;
        argv_.clear();
        for (std::string &a : storage_)
            argv_.push_back(a.data());
        argv_.push_back(nullptr);
        return doca_argp_start(int(storage_.size()), argv_.data());
    }

    // start() with stdout captured (the usage text).
    doca_error_t start_captured(std::vector<std::string> args, std::string *out)
    {
        testing::internal::CaptureStdout();
        const doca_error_t rc = start(std::move(args));
        *out = testing::internal::GetCapturedStdout();
        return rc;
    }

    std::string write_json(const std::string &text)
    {
        char path[] = "/tmp/softcomch_argp_XXXXXX";
        const int fd = mkstemp(path);
        EXPECT_GE(fd, 0);
        EXPECT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
        close(fd);
        files_.emplace_back(path);
        return path;
    }

    ~Argp() override
    {
        for (const std::string &f : files_)
            unlink(f.c_str());
    }

    config cfg_;
    std::vector<std::string> storage_;
    std::vector<char *> argv_;
    std::vector<std::string> files_;
};

// Runs `body` in a child; returns its exit status and stdout.
template <typename Fn> std::pair<int, std::string> run_child(Fn body)
{
    int p[2];
    EXPECT_EQ(pipe(p), 0);
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        body();
        fflush(stdout);
        _exit(99); // body was expected to exit by itself
    }
    close(p[1]);
    std::string out;
    char chunk[4096];
    ssize_t n;
    while ((n = read(p[0], chunk, sizeof(chunk))) > 0)
        out.append(chunk, size_t(n));
    close(p[0]);
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

const char *const doca_flags_block =
    "DOCA Flags:\n"
    "  -h, --help                        Print a help synopsis\n"
    "  -v, --version                     Print program version information\n"
    "  -l, --log-level                   Set the (numeric) log level for the program <10=DISABLE, "
    "20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>\n"
    "  --sdk-log-level                   Set the SDK (numeric) log level for the program "
    "<10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>\n"
    "  -j, --json <path>                 Parse all command flags from an input json file\n";

TEST_F(Argp, ShortLongEqualsAndGluedForms)
{
    register_basic();
    ASSERT_EQ(start({"-s", "one", "--int", "-7", "-b", "--double=2.5"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "one");
    EXPECT_EQ(cfg_.num, -7);
    EXPECT_TRUE(cfg_.flag);
    EXPECT_DOUBLE_EQ(cfg_.dbl, 2.5);
    EXPECT_EQ(cfg_.validations, 0);
}

TEST_F(Argp, GluedShortAndLongEquals)
{
    register_basic();
    ASSERT_EQ(start({"-stwo", "--int=42", "--bool"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "two");
    EXPECT_EQ(cfg_.num, 42);
    EXPECT_TRUE(cfg_.flag);
}

TEST_F(Argp, ValuesMayStartWithADash)
{
    register_basic();
    ASSERT_EQ(start({"--str", "-x-", "-i", "-1"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "-x-");
    EXPECT_EQ(cfg_.num, -1);
}

TEST_F(Argp, IntegersAreParsedStrictly)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"-i", "12x"}, &out), DOCA_ERROR_INVALID_VALUE);
    EXPECT_NE(out.find("Usage: test_prog"), std::string::npos);
}

TEST_F(Argp, IntegerOutOfRange)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"--int=99999999999"}, &out), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Argp, EmptyIntegerIsRefused)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"--int="}, &out), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Argp, UnknownFlagPrintsUsageAndIsNotSupported)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"--nope"}, &out), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(out.rfind("Usage: test_prog [DOCA Flags] [Program Flags]\n\n", 0), 0u) << out;
    EXPECT_NE(out.find(doca_flags_block), std::string::npos) << out;
}

TEST_F(Argp, UnknownShortFlagAndStrayWord)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"-q"}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(Argp, EmptyLongNameIsUnknown)
{
    register_basic();
    ASSERT_EQ(doca_argp_register_param(make_param("z", nullptr, DOCA_ARGP_TYPE_STRING, str_cb)),
              DOCA_SUCCESS);
    std::string out;
    EXPECT_EQ(start_captured({"--=x"}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(Argp, StrayWordIsNotSupported)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"word"}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(Argp, MissingValue)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"--str"}, &out), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Argp, MandatoryFlagMissing)
{
    doca_argp_param *p = make_param("p", "pci-addr", DOCA_ARGP_TYPE_STRING, str_cb);
    doca_argp_param_set_mandatory(p);
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    std::string out;
    EXPECT_EQ(start_captured({}, &out), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cfg_.str_calls, 0);
}

TEST_F(Argp, MandatoryFlagGiven)
{
    doca_argp_param *p = make_param("p", "pci-addr", DOCA_ARGP_TYPE_STRING, str_cb);
    doca_argp_param_set_mandatory(p);
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    EXPECT_EQ(start({"-p", "03:00.0"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "03:00.0");
}

TEST_F(Argp, SingleUseByDefault)
{
    register_basic();
    std::string out;
    EXPECT_EQ(start_captured({"-s", "a", "--str", "b"}, &out), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cfg_.str_calls, 0); // refused before any callback ran
}

TEST_F(Argp, MultiplicityCallsOncePerValue)
{
    doca_argp_param *p = make_param("m", "multi", DOCA_ARGP_TYPE_STRING, multi_cb);
    doca_argp_param_set_multiplicity(p);
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    ASSERT_EQ(start({"-m", "a", "--multi", "b", "--multi=c"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.multi, (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(Argp, SingularExcludesOtherFlags)
{
    register_basic();
    doca_argp_param *p = make_param(nullptr, "list", DOCA_ARGP_TYPE_BOOLEAN, bool_cb);
    doca_argp_param_set_singular(p);
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    std::string out;
    EXPECT_EQ(start_captured({"--list", "-s", "x"}, &out), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Argp, SingularAlone)
{
    doca_argp_param *p = make_param(nullptr, "list", DOCA_ARGP_TYPE_BOOLEAN, bool_cb);
    doca_argp_param_set_singular(p);
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    EXPECT_EQ(start({"--list", "-l", "60"}), DOCA_SUCCESS); // DOCA flags do not count
    EXPECT_TRUE(cfg_.flag);
}

TEST_F(Argp, CallbackErrorIsReturned)
{
    ASSERT_EQ(doca_argp_register_param(make_param("r", "refuse", DOCA_ARGP_TYPE_STRING, refuse_cb)),
              DOCA_SUCCESS);
    EXPECT_EQ(start({"-r", "x"}), DOCA_ERROR_BAD_CONFIG);
}

TEST_F(Argp, ValidationCallbackRunsLast)
{
    register_basic();
    ASSERT_EQ(doca_argp_register_validation_callback(validate_cb), DOCA_SUCCESS);
    ASSERT_EQ(start({"-s", "x"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.validations, 1);
}

TEST_F(Argp, ValidationErrorIsReturned)
{
    ASSERT_EQ(doca_argp_register_validation_callback(validate_cb), DOCA_SUCCESS);
    cfg_.validation_result = DOCA_ERROR_INVALID_VALUE;
    EXPECT_EQ(start({}), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cfg_.validations, 1);
}

TEST_F(Argp, RegistrationChecks)
{
    EXPECT_EQ(doca_argp_register_param(
                  make_param("x", nullptr, DOCA_ARGP_TYPE_STRING, str_cb, nullptr, nullptr)),
              DOCA_ERROR_INITIALIZATION); // no description
    EXPECT_EQ(doca_argp_register_param(make_param("x", nullptr, DOCA_ARGP_TYPE_STRING, nullptr)),
              DOCA_ERROR_INITIALIZATION); // no callback
    EXPECT_EQ(doca_argp_register_param(make_param("x", nullptr, DOCA_ARGP_TYPE_UNKNOWN, str_cb)),
              DOCA_ERROR_INITIALIZATION); // no type
    EXPECT_EQ(doca_argp_register_param(make_param(nullptr, nullptr, DOCA_ARGP_TYPE_STRING, str_cb)),
              DOCA_ERROR_INITIALIZATION); // no name
    EXPECT_EQ(doca_argp_register_param(make_param("j", "my-json", DOCA_ARGP_TYPE_STRING, str_cb)),
              DOCA_ERROR_INVALID_VALUE); // reserved
    EXPECT_EQ(doca_argp_register_param(make_param("q", "log-level", DOCA_ARGP_TYPE_STRING, str_cb)),
              DOCA_ERROR_INVALID_VALUE); // reserved
    doca_argp_param *p = make_param("x", "xx", DOCA_ARGP_TYPE_STRING, str_cb);
    EXPECT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_register_param(p), DOCA_ERROR_BAD_STATE); // twice
    EXPECT_EQ(doca_argp_param_destroy(p), DOCA_ERROR_BAD_STATE);  // owned by the parser
    EXPECT_EQ(doca_argp_register_param(make_param("x", "other", DOCA_ARGP_TYPE_STRING, str_cb)),
              DOCA_ERROR_INVALID_VALUE); // name in use
    EXPECT_EQ(doca_argp_register_param(nullptr), DOCA_ERROR_INVALID_VALUE);
    doca_argp_param *loose = make_param("y", "yy", DOCA_ARGP_TYPE_INT, int_cb);
    EXPECT_EQ(doca_argp_param_destroy(loose), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_param_destroy(loose), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_argp_param_create(nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Argp, LifecycleErrors)
{
    EXPECT_EQ(doca_argp_init("again", nullptr), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(start({}), DOCA_SUCCESS);
    EXPECT_EQ(start({}), DOCA_ERROR_BAD_STATE); // once per init
    EXPECT_EQ(doca_argp_destroy(), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
    doca_argp_param *p = nullptr;
    EXPECT_EQ(doca_argp_param_create(&p), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(doca_argp_register_validation_callback(validate_cb), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(start({}), DOCA_ERROR_BAD_STATE);
    // After destroy the parser can be used again.
    ASSERT_EQ(doca_argp_init(nullptr, &cfg_), DOCA_SUCCESS);
    register_basic();
    EXPECT_EQ(start({"-i", "5"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.num, 5);
}

TEST_F(Argp, HelpPrintsUsageAndExitsSuccessfully)
{
    register_basic();
    doca_argp_param *hidden = make_param(nullptr, "secret", DOCA_ARGP_TYPE_BOOLEAN, bool_cb);
    doca_argp_param_set_hidden(hidden);
    ASSERT_EQ(doca_argp_register_param(hidden), DOCA_SUCCESS);
    for (const char *flag : {"-h", "--help"}) {
        auto [status, out] = run_child([&] {
            (void)start({"-i", "3", flag, "--unknown-after-help"});
        });
        EXPECT_EQ(status, EXIT_SUCCESS) << flag;
        EXPECT_EQ(out.rfind("Usage: test_prog [DOCA Flags] [Program Flags]\n\n", 0), 0u) << out;
        EXPECT_NE(out.find(doca_flags_block), std::string::npos) << out;
        EXPECT_NE(out.find("\nProgram Flags:\n"
                           "  -s, --str <text>                  Some text\n"
                           "  -i, --int                         a test flag\n"
                           "  -b, --bool                        a test flag\n"
                           "  --double                          a test flag\n"),
                  std::string::npos)
            << out;
        EXPECT_EQ(out.find("secret"), std::string::npos);
    }
}

TEST_F(Argp, ProgramNameDefaultsToArgv0)
{
    ASSERT_EQ(doca_argp_destroy(), DOCA_SUCCESS);
    ASSERT_EQ(doca_argp_init(nullptr, &cfg_), DOCA_SUCCESS);
    auto [status, out] = run_child([&] { (void)start({"--help"}); });
    EXPECT_EQ(status, EXIT_SUCCESS);
    EXPECT_EQ(out.rfind("Usage: test_prog [DOCA Flags]", 0), 0u) << out;
}

TEST_F(Argp, VersionPrintsAndExitsSuccessfully)
{
    for (const char *flag : {"-v", "--version"}) {
        auto [status, out] = run_child([&] { (void)start({flag}); });
        EXPECT_EQ(status, EXIT_SUCCESS);
        EXPECT_NE(out.find("test_prog"), std::string::npos) << out;
        EXPECT_NE(out.find(DOCA_VERSION_STRING), std::string::npos) << out;
    }
}

TEST_F(Argp, CustomVersionCallback)
{
    ASSERT_EQ(doca_argp_register_version_callback([](void *, void *) -> doca_error_t {
                  printf("custom version\n");
                  return DOCA_SUCCESS;
              }),
              DOCA_SUCCESS);
    auto [status, out] = run_child([&] { (void)start({"-v"}); });
    EXPECT_EQ(status, EXIT_SUCCESS);
    EXPECT_EQ(out, "custom version\n");
}

TEST_F(Argp, LogLevelFlagSetsTheApplicationLowerLimit)
{
    int level = 0;
    ASSERT_EQ(doca_argp_get_log_level(&level), DOCA_SUCCESS);
    EXPECT_EQ(level, int(doca_log_level_get_global_lower_limit()));
    ASSERT_EQ(start({"-l", "60", "--sdk-log-level", "30"}), DOCA_SUCCESS);
    EXPECT_EQ(doca_log_level_get_global_lower_limit(), 60u);
    EXPECT_EQ(doca_log_level_get_global_sdk_limit(), 30u);
    ASSERT_EQ(doca_argp_get_log_level(&level), DOCA_SUCCESS);
    EXPECT_EQ(level, 60);
    ASSERT_EQ(doca_argp_get_sdk_log_level(&level), DOCA_SUCCESS);
    EXPECT_EQ(level, 30);
    EXPECT_EQ(doca_argp_get_log_level(nullptr), DOCA_ERROR_INVALID_VALUE);
    doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING);
}

TEST_F(Argp, LogLevelForms)
{
    ASSERT_EQ(start({"-l70", "--log-level=40"}), DOCA_SUCCESS); // the last one wins
    EXPECT_EQ(doca_log_level_get_global_lower_limit(), 40u);
}

TEST_F(Argp, LogLevelOutOfRange)
{
    std::string out;
    EXPECT_EQ(start_captured({"-l", "5"}, &out), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Argp, JsonObjectType)
{
    ASSERT_EQ(doca_argp_register_param(make_param("o", "obj", DOCA_ARGP_TYPE_JSON_OBJ, obj_cb)),
              DOCA_SUCCESS);
    ASSERT_EQ(start({"--obj", R"({"a": [1, 2]})"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.obj, R"({"a": [1, 2]})");
}

TEST_F(Argp, JsonObjectTypeRejectsBadJson)
{
    ASSERT_EQ(doca_argp_register_param(make_param("o", "obj", DOCA_ARGP_TYPE_JSON_OBJ, obj_cb)),
              DOCA_SUCCESS);
    std::string out;
    EXPECT_EQ(start_captured({"--obj", "{a:1}"}, &out), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Argp, Commands)
{
    doca_argp_param *verbose = make_param("V", "verbose", DOCA_ARGP_TYPE_BOOLEAN, bool_cb);
    doca_argp_param_set_inherited(verbose);
    ASSERT_EQ(doca_argp_register_param(verbose), DOCA_SUCCESS);

    doca_argp_cmd *send = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&send), DOCA_SUCCESS);
    doca_argp_cmd_set_name(send, "send");
    doca_argp_cmd_set_description(send, "Send messages");
    doca_argp_cmd_set_callback(send, send_cmd_cb);
    doca_argp_param *count = make_param("c", "count", DOCA_ARGP_TYPE_INT, int_cb);
    doca_argp_param_set_mandatory(count);
    ASSERT_EQ(doca_argp_cmd_register_param(send, count), DOCA_SUCCESS);
    doca_argp_cmd *fast = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&fast), DOCA_SUCCESS);
    doca_argp_cmd_set_name(fast, "fast");
    doca_argp_cmd_set_description(fast, "Use the fast path");
    doca_argp_cmd_set_callback(fast, fast_cmd_cb);
    ASSERT_EQ(doca_argp_cmd_register_cmd(send, fast), DOCA_SUCCESS);
    ASSERT_EQ(doca_argp_register_cmd(send), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_register_cmd(send), DOCA_ERROR_BAD_STATE);

    ASSERT_EQ(start({"send", "-c", "3", "fast", "--verbose"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.num, 3);
    EXPECT_TRUE(cfg_.flag); // inherited from the program into the sub-commands
    EXPECT_EQ(cfg_.cmds, (std::vector<std::string>{"send", "fast"}));
}

TEST_F(Argp, CommandScopeAndErrors)
{
    doca_argp_cmd *send = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&send), DOCA_SUCCESS);
    doca_argp_cmd_set_name(send, "send");
    doca_argp_cmd_set_description(send, "Send messages");
    doca_argp_param *count = make_param("c", "count", DOCA_ARGP_TYPE_INT, int_cb);
    doca_argp_param_set_mandatory(count);
    ASSERT_EQ(doca_argp_cmd_register_param(send, count), DOCA_SUCCESS);
    ASSERT_EQ(doca_argp_register_cmd(send), DOCA_SUCCESS);

    doca_argp_cmd *nameless = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&nameless), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_register_cmd(nameless), DOCA_ERROR_INITIALIZATION);

    std::string out;
    EXPECT_EQ(start_captured({"-c", "3", "send"}, &out),
              DOCA_ERROR_NOT_SUPPORTED); // -c belongs to send
    EXPECT_NE(out.find("\nCommands:\n  send                              Send messages\n"),
              std::string::npos)
        << out;
}

TEST_F(Argp, CommandMandatoryFlag)
{
    doca_argp_cmd *send = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&send), DOCA_SUCCESS);
    doca_argp_cmd_set_name(send, "send");
    doca_argp_cmd_set_description(send, "Send messages");
    doca_argp_param *count = make_param("c", "count", DOCA_ARGP_TYPE_INT, int_cb);
    doca_argp_param_set_mandatory(count);
    ASSERT_EQ(doca_argp_cmd_register_param(send, count), DOCA_SUCCESS);
    ASSERT_EQ(doca_argp_register_cmd(send), DOCA_SUCCESS);
    std::string out;
    EXPECT_EQ(start_captured({"send"}, &out), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(out.rfind("Usage: test_prog send [DOCA Flags] [Program Flags]\n", 0), 0u) << out;
}

TEST_F(Argp, UnknownCommand)
{
    doca_argp_cmd *send = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&send), DOCA_SUCCESS);
    doca_argp_cmd_set_name(send, "send");
    doca_argp_cmd_set_description(send, "Send messages");
    ASSERT_EQ(doca_argp_register_cmd(send), DOCA_SUCCESS);
    std::string out;
    EXPECT_EQ(start_captured({"recv"}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

std::vector<std::string> g_dpdk_args;

TEST_F(Argp, DpdkFlagsGoBeforeTheSeparator)
{
    register_basic();
    g_dpdk_args.clear();
    doca_argp_set_dpdk_program([](int argc, char **argv) -> doca_error_t {
        for (int k = 0; k < argc; ++k)
            g_dpdk_args.emplace_back(argv[k]);
        return argv[argc] == nullptr ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED;
    });
    ASSERT_EQ(start({"-a", "0000:03:00.0", "-c", "0x1", "--", "-s", "doca"}), DOCA_SUCCESS);
    EXPECT_EQ(g_dpdk_args,
              (std::vector<std::string>{"./bin/test_prog", "-a", "0000:03:00.0", "-c", "0x1"}));
    EXPECT_EQ(cfg_.str, "doca");
}

std::vector<std::string> g_logged;

TEST_F(Argp, LoggerCallbackReceivesParserMessages)
{
    g_logged.clear();
    auto logger = [](doca_log_level level, const char *format, va_list args) -> doca_error_t {
        char text[512];
        vsnprintf(text, sizeof(text), format, args);
        g_logged.push_back(std::to_string(int(level)) + " " + text);
        return DOCA_SUCCESS;
    };
    ASSERT_EQ(doca_argp_register_logger_callback(logger), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_register_logger_callback(logger), DOCA_ERROR_ALREADY_EXIST);
    std::string out;
    EXPECT_EQ(start_captured({"--bogus"}, &out), DOCA_ERROR_NOT_SUPPORTED);
    ASSERT_EQ(g_logged.size(), 1u);
    EXPECT_EQ(g_logged[0], "30 Unknown flag --bogus");
    EXPECT_EQ(doca_argp_disable_logger_callback(), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_disable_logger_callback(), DOCA_ERROR_BAD_STATE);
}

// Every value that does not fit its flag's type is refused with a message naming the flag and
// the type it takes, from the command line and from a JSON file alike.
TEST_F(Argp, ValuesOfTheWrongTypeNameTheFlagAndItsType)
{
    auto logger = [](doca_log_level, const char *format, va_list args) -> doca_error_t {
        char text[512];
        vsnprintf(text, sizeof(text), format, args);
        g_logged.push_back(text);
        return DOCA_SUCCESS;
    };
    // One parse per parser: each case gets a fresh one (the fixture made the first).
    const auto refused = [&](std::vector<std::string> args) {
        (void)doca_argp_destroy();
        EXPECT_EQ(doca_argp_init("test_prog", &cfg_), DOCA_SUCCESS);
        register_basic();
        EXPECT_EQ(doca_argp_register_logger_callback(logger), DOCA_SUCCESS);
        g_logged.clear();
        std::string out;
        EXPECT_EQ(start_captured(std::move(args), &out), DOCA_ERROR_INVALID_VALUE);
        return g_logged.empty() ? std::string() : g_logged[0];
    };
    EXPECT_EQ(refused({"-i", "12x"}), "Flag --int expects an integer, got \"12x\"");
    EXPECT_EQ(refused({"--double", "half"}), "Flag --double expects a number, got \"half\"");
    EXPECT_EQ(refused({"-j", write_json(R"({"doca_program_flags": {"int": 1.5}})")}),
              "JSON key \"int\" expects an integer");
    EXPECT_EQ(refused({"-j", write_json(R"({"doca_program_flags": {"int": "1x"}})")}),
              "JSON key \"int\" expects an integer");
    for (const char *key : {"str", "bool", "double"})
        EXPECT_NE(refused({"-j", write_json(std::string(R"({"doca_program_flags": {")") + key +
                                            R"(": {}}})")})
                      .find("does not fit this flag"),
                  std::string::npos)
            << key;
}

TEST_F(Argp, JsonConfiguration)
{
    register_basic();
    doca_argp_param *m = make_param("m", "multi", DOCA_ARGP_TYPE_STRING, multi_cb);
    doca_argp_param_set_multiplicity(m);
    ASSERT_EQ(doca_argp_register_param(m), DOCA_SUCCESS);
    const std::string path = write_json(R"({
        "doca_dpdk_flags": {},
        "doca_general_flags": {"log-level": 60, "sdk-log-level": "40"},
        "doca_program_flags": {"str": "from-json", "int": 12, "bool": true, "double": 0.5,
                               "multi": ["x", "y"]}
    })");
    ASSERT_EQ(start({"-j", path}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "from-json");
    EXPECT_EQ(cfg_.num, 12);
    EXPECT_TRUE(cfg_.flag);
    EXPECT_DOUBLE_EQ(cfg_.dbl, 0.5);
    EXPECT_EQ(cfg_.multi, (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(doca_log_level_get_global_lower_limit(), 60u);
    int level = 0;
    ASSERT_EQ(doca_argp_get_sdk_log_level(&level), DOCA_SUCCESS);
    EXPECT_EQ(level, 40);
}

// NVIDIA's applications' parameter files carry C and C++ comments (json-c accepts them): both
// kinds anywhere outside strings, and comment markers inside strings are data.
TEST_F(Argp, JsonFilesWithCommentsAsNvidiasApplicationsShipThem)
{
    register_basic();
    const std::string path = write_json(R"({
        // the general flags
        "doca_general_flags": {
            "log-level": 60 // trailing comment
        },
        /* the program's own
           flags */
        "doca_program_flags": {
            "str": "http://x/*y*/ // not a comment", /* after a value */ "int": 7
        }
    }
    // last line without a newline)");
    ASSERT_EQ(start({"-j", path}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "http://x/*y*/ // not a comment");
    EXPECT_EQ(cfg_.num, 7);
    EXPECT_EQ(doca_log_level_get_global_lower_limit(), 60u);
}

// json-c also takes a comma before a closing brace or bracket, and 11 of NVIDIA's application
// parameter files at 3.1.0 end an object so (file_compression: `"log-level": 60,` then `}`); a
// comma in a string stays, and two commas in a row are still an error.
TEST_F(Argp, JsonTrailingCommasAsJsonCAcceptsThem)
{
    register_basic();
    doca_argp_param *m = make_param("m", "multi", DOCA_ARGP_TYPE_STRING, multi_cb);
    doca_argp_param_set_multiplicity(m);
    ASSERT_EQ(doca_argp_register_param(m), DOCA_SUCCESS);
    const std::string path = write_json(R"({
        "doca_general_flags": {
            "log-level": 60, // a comment between the comma and the brace
        },
        "doca_program_flags": {"str": "a,}", "multi": ["x", "y", ], "int": 3,},
    })");
    ASSERT_EQ(start({"-j", path}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "a,}");
    EXPECT_EQ(cfg_.num, 3);
    EXPECT_EQ(cfg_.multi, (std::vector<std::string>{"x", "y"}));
    (void)doca_argp_destroy();
    ASSERT_EQ(doca_argp_init("test_prog", &cfg_), DOCA_SUCCESS);
    register_basic();
    testing::internal::CaptureStderr();
    const doca_error_t rc = start({"-j", write_json(R"({"doca_program_flags": {"int": 3,,}})")});
    (void)testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, DOCA_ERROR_IO_FAILED);
}

TEST_F(Argp, JsonBlockCommentThatNeverEndsIsRefused)
{
    register_basic();
    const std::string path = write_json(R"({"doca_program_flags": {"int": 7}} /* open)");
    testing::internal::CaptureStderr();
    const doca_error_t rc = start({"-j", path});
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, DOCA_ERROR_IO_FAILED);
    EXPECT_NE(err.find("a comment that starts with /* never ends"), std::string::npos) << err;
}

TEST_F(Argp, CommandLineWinsOverJson)
{
    register_basic();
    const std::string path =
        write_json(R"({"doca_program_flags": {"str": "from-json", "int": 1}})");
    ASSERT_EQ(start({"--json", path, "--str", "from-cli"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "from-cli");
    EXPECT_EQ(cfg_.str_calls, 1);
    EXPECT_EQ(cfg_.num, 1);
}

TEST_F(Argp, JsonUnknownKeyIsNotSupported)
{
    register_basic();
    const std::string path = write_json(R"({"doca_program_flags": {"nope": 1}})");
    std::string out;
    EXPECT_EQ(start_captured({"-j", path}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(Argp, JsonUnknownSectionIsNotSupported)
{
    const std::string path = write_json(R"({"doca_other_flags": {}})");
    std::string out;
    EXPECT_EQ(start_captured({"-j", path}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(Argp, JsonUnknownGeneralKeyIsNotSupported)
{
    const std::string path = write_json(R"({"doca_general_flags": {"verbosity": 3}})");
    std::string out;
    EXPECT_EQ(start_captured({"-j", path}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(Argp, JsonCliOnlyFlagIsNotSupported)
{
    doca_argp_param *p = make_param("s", "str", DOCA_ARGP_TYPE_STRING, str_cb);
    doca_argp_param_set_cli_only(p);
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    const std::string path = write_json(R"({"doca_program_flags": {"str": "x"}})");
    std::string out;
    EXPECT_EQ(start_captured({"-j", path}, &out), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(Argp, JsonWrongTypeIsInvalid)
{
    register_basic();
    const std::string path = write_json(R"({"doca_program_flags": {"int": "twelve"}})");
    std::string out;
    EXPECT_EQ(start_captured({"-j", path}, &out), DOCA_ERROR_INVALID_VALUE);
}

// 1.5 is a number but not an integer: softcomch::json::value::as_int throws in libsoftcomch and
// doca_argp catches (src/argp/parse_json.cpp), across the two libraries' boundary. A catch that
// missed would end in the guard's DOCA_ERROR_UNEXPECTED.
TEST_F(Argp, JsonNonIntegralNumberForIntegerIsInvalid)
{
    register_basic();
    const std::string path = write_json(R"({"doca_program_flags": {"int": 1.5}})");
    std::string out;
    EXPECT_EQ(start_captured({"-j", path}, &out), DOCA_ERROR_INVALID_VALUE);
    EXPECT_NE(out.find("Usage: test_prog"), std::string::npos);
}

TEST_F(Argp, JsonMissingFileIsIoFailure)
{
    EXPECT_EQ(start({"-j", "/nonexistent/softcomch.json"}), DOCA_ERROR_IO_FAILED);
}

TEST_F(Argp, JsonSyntaxErrorIsIoFailure)
{
    // (A comma before the brace is no error: json-c takes it, JsonTrailingCommasAsJsonCAcceptsThem.)
    const std::string path = write_json(R"({"doca_program_flags": {"str": }})");
    EXPECT_EQ(start({"-j", path}), DOCA_ERROR_IO_FAILED);
}

TEST_F(Argp, JsonSatisfiesMandatory)
{
    doca_argp_param *p = make_param("p", "pci-addr", DOCA_ARGP_TYPE_STRING, str_cb);
    doca_argp_param_set_mandatory(p);
    ASSERT_EQ(doca_argp_register_param(p), DOCA_SUCCESS);
    const std::string path = write_json(R"({"doca_program_flags": {"pci-addr": "b1:00.0"}})");
    ASSERT_EQ(start({"-j", path}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "b1:00.0");
}

TEST_F(Argp, JsonCoversTheProgramAndTheSelectedCommand)
{
    register_basic();
    doca_argp_cmd *send = nullptr;
    ASSERT_EQ(doca_argp_cmd_create(&send), DOCA_SUCCESS);
    doca_argp_cmd_set_name(send, "send");
    doca_argp_cmd_set_description(send, "Send messages");
    ASSERT_EQ(doca_argp_cmd_register_param(
                  send, make_param("c", "count", DOCA_ARGP_TYPE_DOUBLE, double_cb)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_argp_register_cmd(send), DOCA_SUCCESS);
    const std::string path = write_json(R"({"doca_program_flags": {"str": "root", "count": 4}})");
    ASSERT_EQ(start({"-j", path, "send"}), DOCA_SUCCESS);
    EXPECT_EQ(cfg_.str, "root");
    EXPECT_DOUBLE_EQ(cfg_.dbl, 4.0);
}

TEST_F(Argp, JsonFlagGivenTwiceOnTheCommandLine)
{
    const std::string path = write_json("{}");
    std::string out;
    EXPECT_EQ(start_captured({"-j", path, "--json", path}, &out), DOCA_ERROR_INVALID_VALUE);
}

} // namespace

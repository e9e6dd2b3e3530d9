// SPDX-License-Identifier: Apache-2.0
//
// The definitions of process_runner.hpp.
#include "process_runner.hpp"

#include "child_process.hpp"

namespace sc_test {

std::string bin_dir()
{
    if (const char *dir = std::getenv("SOFTCOMCH_TEST_BIN_DIR"); dir && *dir)
        return dir;
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().parent_path().string();
}

std::string softcomch_path()
{
    return bin_dir() + "/bin/softcomch";
}

proc_result run_process(const std::vector<std::string> &argv, const run_options &o)
{
    using steady = std::chrono::steady_clock;
    proc_result r;
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        r.err = "pipe failed";
        return r;
    }
    std::vector<char *> args, envp;
    for (const auto &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    if (o.env) {
        for (const auto &e : *o.env)
            envp.push_back(const_cast<char *>(e.c_str()));
        envp.push_back(nullptr);
    }

    const auto start = steady::now();
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        die_with_parent(parent);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        if (o.env)
            execve(args[0], args.data(), envp.data());
        else
            execv(args[0], args.data());
        std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    int fds[2] = {out_pipe[0], err_pipe[0]};
    std::string *sinks[2] = {&r.out, &r.err};
    int status = 0;
    bool reaped = false;
    while (!reaped || fds[0] >= 0 || fds[1] >= 0) {
        pollfd p[2];
        nfds_t n = 0;
        int which[2];
        for (int i = 0; i < 2; ++i) {
            if (fds[i] >= 0) {
                p[n] = {fds[i], POLLIN, 0};
                which[n++] = i;
            }
        }
        ::poll(p, n, 10);
        for (nfds_t k = 0; k < n; ++k) {
            if (p[k].revents == 0)
                continue;
            char buf[4096];
            ssize_t got = ::read(p[k].fd, buf, sizeof buf);
            if (got > 0) {
                sinks[which[k]]->append(buf, size_t(got));
            } else if (got == 0 || errno != EINTR) {
                close(fds[which[k]]);
                fds[which[k]] = -1;
            }
        }
        if (!reaped) {
            if (waitpid(pid, &status, WNOHANG) == pid) {
                reaped = true;
            } else {
                if (o.on_tick)
                    o.on_tick(pid);
                if (steady::now() - start > std::chrono::duration<double>(o.timeout_s)) {
                    kill(pid, SIGKILL);
                    r.timed_out = true;
                }
            }
        }
    }
    r.seconds = std::chrono::duration<double>(steady::now() - start).count();
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

bool has_line(const std::string &text, const std::string &prefix,
              std::initializer_list<std::string> parts)
{
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        if (end == std::string::npos)
            end = text.size();
        std::string_view line(text.data() + begin, end - begin);
        if (line.starts_with(prefix)) {
            size_t at = prefix.size();
            bool all = true;
            for (const auto &part : parts) {
                at = line.find(part, at);
                if (at == std::string_view::npos) {
                    all = false;
                    break;
                }
                at += part.size();
            }
            if (all)
                return true;
        }
        begin = end + 1;
    }
    return false;
}

} // namespace sc_test

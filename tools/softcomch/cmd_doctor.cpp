// SPDX-License-Identifier: Apache-2.0
//
// softcomch doctor: its command line and the order of its checks (doctor/doctor.hpp says what the
// checks are and where each one lives).
#include <array>
#include <string>

#include "command.hpp"
#include "doctor/doctor.hpp"
#include "introspect/fabric.hpp"
#include "options.hpp"

namespace softcomch::tools {

namespace {

constexpr std::array doctor_options{
    option_spec{"json", 0, "", "print the report as one JSON object on stdout"},
    option_spec{"fabric", 0, "NAME",
                "check fabric NAME instead of $SOFTCOMCH_FABRIC (e.g. one kept by run --fabric)"},
    option_spec{"client", 0, "NAME",
                "also say why a client of server NAME would or would not connect: the server it "
                "would reach, the same name on another representor, near names, another fabric"},
    option_spec{"pci", 0, "ADDR",
                "with --client: the client's device (a host function, e.g. b1:00.0); without "
                "it, any host function"},
};

constexpr command_usage doctor_usage{
    "doctor",
    "[--json] [--fabric NAME] [--client NAME [--pci ADDR]]",
    "Checks this machine and environment for SoftComch: versions, every SOFTCOMCH_* variable "
    "(unknown ones are likely typos), the fabric directory and the endpoints in it (stale ones "
    "of dead servers), the devices this process would see, the fast path's memory mechanism "
    "(shared memory or process_vm_writev) and copy policy, descriptor limits, memfd_create, and "
    "for an installed tree the library and the pkg-config files. Each line reads: status (ok, "
    "warn, FAIL), what was checked, the finding, and for warn/FAIL what to do. With --client, "
    "it also answers \"why does my client not connect?\" for a client of that server name "
    "(and device, --pci) in this fabric. Nothing is changed.",
    doctor_options,
    "Exit status:\n"
    "  0  no check FAILed (warnings allowed)\n"
    "  1  at least one check FAILed\n"
    "  2  bad command line\n",
};

} // namespace

int cmd_doctor(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, doctor_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(doctor_usage, "unexpected argument '" + opts.positional().front() + "'");
    const std::string fabric = opts.get("fabric").value_or(introspect::fabric_name());
    if (opts.has("pci") && !opts.has("client"))
        return usage_error(doctor_usage, "--pci needs --client NAME");

    using namespace doctor;
    report r;
    check_version(r);
    check_fabric_env(r);
    check_side_env(r);
    check_topology_env(r);
    check_log_level_env(r);
    check_memory_env(r);
    check_copy_env(r);
    check_bounds_env(r);
    check_samples_env(r);
    check_unknown_env(r);
    check_fabric(r, fabric);
    if (const auto client = opts.get("client"))
        check_client(r, fabric, *client, opts.get("pci"));
    check_devices(r);
    check_fast_path(r);
    check_limits(r);
    check_install(r);

    if (opts.has("json"))
        print_json(r);
    else
        print_text(r);
    return r.count(verdict::fail) != 0 ? exit_failure : exit_ok;
}

} // namespace softcomch::tools

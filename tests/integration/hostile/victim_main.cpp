// SPDX-License-Identifier: Apache-2.0
//
// hostile_victim: the victims of the hostile-peer tests as one program (victim.hpp), started by
// the launchers of launch.cpp:
//   hostile_victim server NAME LOG PRODUCE(0|1) PAYLOAD
//   hostile_victim client HOSTILE_NAME HONEST_NAME LOG refused|closed|neighbours
//   hostile_victim honest NAME [hold]
// Exit status 0: the victim did all its plan; 64: bad arguments; otherwise the failed step.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "victim.hpp"

namespace {

int usage()
{
    std::fprintf(stderr, "usage: hostile_victim server NAME LOG PRODUCE PAYLOAD\n"
                         "       hostile_victim client HOSTILE HONEST LOG PLAN\n"
                         "       hostile_victim honest NAME [hold]\n");
    return 64;
}

bool plan_named(const std::string &s, hostile::client_plan &out)
{
    if (s == "refused")
        out = hostile::client_plan::refused;
    else if (s == "closed")
        out = hostile::client_plan::closed;
    else if (s == "neighbours")
        out = hostile::client_plan::neighbours;
    else
        return false;
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    const std::string cmd = argv[1];
    if (cmd == "server" && argc == 6) {
        hostile::victim_server_options o;
        o.name = argv[2];
        o.log = argv[3];
        o.produce = std::string(argv[4]) == "1";
        o.payload = std::strtoull(argv[5], nullptr, 10);
        return hostile::victim_server_main(o);
    }
    if (cmd == "client" && argc == 6) {
        hostile::victim_client_options o;
        o.hostile_name = argv[2];
        o.honest_name = argv[3];
        o.log = argv[4];
        if (!plan_named(argv[5], o.plan))
            return usage();
        return hostile::victim_client_main(o);
    }
    if (cmd == "honest" && (argc == 3 || (argc == 4 && std::string(argv[3]) == "hold")))
        return hostile::honest_client_main(argv[2], argc == 4);
    return usage();
}

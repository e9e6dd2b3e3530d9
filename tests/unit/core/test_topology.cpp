// SPDX-License-Identifier: Apache-2.0
//
// The emulated machine: built-in content, the topology file format (valid documents and each
// class of error), the process-wide view (SOFTCOMCH_TOPOLOGY, SOFTCOMCH_SIDE), PCI address
// parsing and the privilege policy.
#include <gtest/gtest.h>

#include <grp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "build_tree.hpp"
#include "common/json.hpp"
#include "core/device.hpp"
#include "core/topology.hpp"

using namespace softcomch::core;
namespace json = softcomch::json;

namespace {

std::unique_ptr<topology> parse_ok(const std::string &text)
{
    std::string err;
    auto t = topology::from_json_text(text, "t.json", &err);
    EXPECT_NE(t, nullptr) << err;
    EXPECT_EQ(err, "");
    return t;
}

std::string parse_error(const std::string &text)
{
    std::string err;
    auto t = topology::from_json_text(text, "t.json", &err);
    EXPECT_EQ(t, nullptr) << "accepted: " << text;
    return err;
}

// A minimal valid BlueField with `extra` members spliced in, and `host` / `dpu` replaced when given.
std::string one_bf(const std::string &extra = "",
                   const std::string &host = R"([{"pci": "b1:00.0"}])",
                   const std::string &dpu =
                       R"([{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"}]}])")
{
    return R"({"bluefields": [{"id": "bf0", )" + extra + R"("host": )" + host + R"(, "dpu": )" +
           dpu + "}]}";
}

// The fenced JSON block after "<!-- topology-example -->" in docs/topology.md.
std::string doc_example()
{
    std::ifstream in(std::string(sc_test::build_tree::source_dir) + "/docs/topology.md");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string md = ss.str();
    size_t marker = md.find("<!-- topology-example -->");
    if (marker == std::string::npos)
        return {};
    size_t start = md.find("```json\n", marker);
    size_t end = md.find("```\n", start + 8);
    if (start == std::string::npos || end == std::string::npos)
        return {};
    return md.substr(start + 8, end - start - 8);
}

const doca_devinfo *dev(const topology &t, side s, const char *pci)
{
    std::string canon;
    EXPECT_TRUE(canonical_pci_addr(pci, canon));
    return t.find_device(s, canon);
}

class env_guard {
public:
    env_guard()
    {
        save("SOFTCOMCH_TOPOLOGY", topo_);
        save("SOFTCOMCH_SIDE", side_);
        reset_machine_for_testing();
    }
    ~env_guard()
    {
        restore("SOFTCOMCH_TOPOLOGY", topo_);
        restore("SOFTCOMCH_SIDE", side_);
        reset_machine_for_testing();
    }

private:
    static void save(const char *name, std::optional<std::string> &slot)
    {
        if (const char *v = std::getenv(name))
            slot = v;
    }
    static void restore(const char *name, const std::optional<std::string> &slot)
    {
        if (slot)
            ::setenv(name, slot->c_str(), 1);
        else
            ::unsetenv(name);
    }
    std::optional<std::string> topo_, side_;
};

std::string write_temp(const std::string &text)
{
    char path[] = "/tmp/softcomch-topo-XXXXXX";
    int fd = ::mkstemp(path);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
    return path;
}

} // namespace

// ------------------------------------------------------------------------------------------------
// built-in machine
// ------------------------------------------------------------------------------------------------

TEST(Topology, BuiltinDevices)
{
    auto t = topology::builtin();
    ASSERT_EQ(t->origin(), "built-in default");
    ASSERT_EQ(t->bluefields().size(), 1u);
    const bluefield &bf = *t->bluefields()[0];
    EXPECT_EQ(bf.id_, "bf0");
    EXPECT_EQ(bf.model_, "BlueField-3");
    EXPECT_EQ(bf.mode_, bf_mode::dpu);
    EXPECT_EQ(bf.privilege_.rule_, privilege_policy::rule::anyone);

    struct expect {
        side s;
        const char *pci, *ibdev, *iface;
        doca_pci_func_type type;
        uint32_t pf;
    };
    const expect want[] = {
        {side::host, "0000:b1:00.0", "mlx5_0", "ens1f0np0", DOCA_PCI_FUNC_TYPE_PF, 0},
        {side::host, "0000:b1:00.1", "mlx5_1", "ens1f1np1", DOCA_PCI_FUNC_TYPE_PF, 1},
        {side::host, "0000:b1:00.2", "mlx5_2", "ens1f0v0", DOCA_PCI_FUNC_TYPE_VF, 0},
        {side::dpu, "0000:03:00.0", "mlx5_0", "p0", DOCA_PCI_FUNC_TYPE_PF, 0},
        {side::dpu, "0000:03:00.1", "mlx5_1", "p1", DOCA_PCI_FUNC_TYPE_PF, 1},
    };
    ASSERT_EQ(t->devices().size(), std::size(want));
    for (size_t i = 0; i < std::size(want); ++i) {
        const doca_devinfo *d = t->devices()[i];
        SCOPED_TRACE(want[i].pci);
        EXPECT_TRUE(d->tag_.is(softcomch::object_kind::devinfo));
        EXPECT_EQ(d->side(), want[i].s);
        EXPECT_EQ(d->pci_addr(), want[i].pci);
        EXPECT_EQ(d->ibdev_name(), want[i].ibdev);
        EXPECT_EQ(d->iface_name(), want[i].iface);
        EXPECT_EQ(d->func_type(), want[i].type);
        EXPECT_EQ(d->pf_index(), want[i].pf);
        EXPECT_EQ(d->bluefield_id(), "bf0");
        EXPECT_EQ(d->comch(), comch_caps{});
        EXPECT_EQ(d->dma(), dma_caps{});
        EXPECT_EQ(d->server_capable(), want[i].s == side::dpu);
        EXPECT_EQ(d->client_capable(), want[i].s == side::host);
        EXPECT_EQ(d->active_rate(), 200'000'000'000ull);
        EXPECT_EQ(d->ipv4(), (std::array<uint8_t, 4>{}));
    }
    EXPECT_EQ(t->devices()[0]->function_id(), "bf0/host/0000:b1:00.0");
    EXPECT_EQ(t->devices()[3]->function_id(), "bf0/dpu/0000:03:00.0");
    EXPECT_EQ(t->devices()[0]->vuid(), "MT2334SC0000Hpf0");
    EXPECT_EQ(t->devices()[2]->vuid(), "MT2334SC0000Hpf0vf0");
    EXPECT_EQ(t->devices()[4]->vuid(), "MT2334SC0000Dpf1");
    EXPECT_EQ(t->devices()[2]->vf_index(), 0u);
    EXPECT_EQ(t->devices()[0]->mac(), (std::array<uint8_t, 6>{0x02, 0x5c, 0, 0, 0, 0}));
    EXPECT_EQ(t->devices()[4]->mac(), (std::array<uint8_t, 6>{0x02, 0x5c, 0, 1, 0, 1}));
    auto v6 = t->devices()[0]->ipv6();
    EXPECT_EQ(v6[0], 0xfe);
    EXPECT_EQ(v6[1], 0x80);
    EXPECT_EQ(v6[8], 0x00); // 0x02 with the universal/local bit flipped
    EXPECT_EQ(v6[11], 0xff);
    EXPECT_EQ(v6[12], 0xfe);
    // vHCA ids are unique within the BlueField.
    std::set<uint16_t> vhca;
    for (const doca_devinfo *d : t->devices())
        vhca.insert(d->vhca_id());
    EXPECT_EQ(vhca.size(), t->devices().size());
}

TEST(Topology, BuiltinRepresentors)
{
    auto t = topology::builtin();
    const doca_devinfo *p0 = dev(*t, side::dpu, "03:00.0");
    const doca_devinfo *p1 = dev(*t, side::dpu, "03:00.1");
    ASSERT_TRUE(p0 && p1);
    EXPECT_TRUE(p0->manages_representors());
    ASSERT_EQ(p0->representors().size(), 2u);
    ASSERT_EQ(p1->representors().size(), 1u);
    const doca_devinfo_rep *pf0hpf = p0->representors()[0];
    const doca_devinfo_rep *pf0vf0 = p0->representors()[1];
    const doca_devinfo_rep *pf1hpf = p1->representors()[0];
    EXPECT_EQ(pf0hpf->name(), "pf0hpf");
    EXPECT_EQ(pf0hpf->pci_addr(), "0000:b1:00.0");
    EXPECT_EQ(pf0hpf->func_type(), DOCA_PCI_FUNC_TYPE_PF);
    EXPECT_EQ(pf0hpf->iface_name(), "pf0hpf");
    EXPECT_EQ(pf0vf0->name(), "pf0vf0");
    EXPECT_EQ(pf0vf0->pci_addr(), "0000:b1:00.2");
    EXPECT_EQ(pf0vf0->func_type(), DOCA_PCI_FUNC_TYPE_VF);
    EXPECT_EQ(pf1hpf->name(), "pf1hpf");
    EXPECT_EQ(pf1hpf->pci_addr(), "0000:b1:00.1");
    EXPECT_EQ(pf0hpf->manager(), p0);
    EXPECT_EQ(pf1hpf->manager(), p1);
    const doca_devinfo *h0 = dev(*t, side::host, "b1:00.0");
    EXPECT_EQ(pf0hpf->host_function(), h0);
    // A server's representor and a client's device meet on the same key.
    EXPECT_EQ(pf0hpf->function_id(), h0->function_id());
    EXPECT_EQ(pf0hpf->vuid(), h0->vuid());
    EXPECT_EQ(pf0hpf->vhca_id(), h0->vhca_id());
    EXPECT_EQ(pf0hpf->bluefield_id(), "bf0");
    EXPECT_EQ(t->representors().size(), 3u);
    EXPECT_TRUE(dev(*t, side::host, "b1:00.0")->representors().empty());
    EXPECT_FALSE(dev(*t, side::host, "b1:00.0")->manages_representors());
    EXPECT_EQ(t->find_function("bf0/host/0000:b1:00.2"), dev(*t, side::host, "b1:00.2"));
    EXPECT_EQ(t->find_function("bf0/host/0000:b1:00.7"), nullptr);
}

TEST(Topology, ToJsonRoundTrip)
{
    auto t = topology::builtin();
    json::value doc = t->to_json();
    auto again = parse_ok(json::dump(doc));
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->to_json(), doc);
    auto ex = parse_ok(doc_example());
    ASSERT_NE(ex, nullptr);
    auto ex2 = parse_ok(json::dump(ex->to_json()));
    ASSERT_NE(ex2, nullptr);
    EXPECT_EQ(ex2->to_json(), ex->to_json());
}

// ------------------------------------------------------------------------------------------------
// file format: valid documents
// ------------------------------------------------------------------------------------------------

TEST(TopologyFile, DocumentationExample)
{
    std::string text = doc_example();
    ASSERT_FALSE(text.empty()) << "no example block in docs/topology.md";
    auto t = parse_ok(text);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->bluefields().size(), 2u);
    const bluefield &bf0 = *t->bluefields()[0];
    const bluefield &bf1 = *t->bluefields()[1];
    EXPECT_EQ(bf0.serial_, "MT2334XZ0K5D");
    EXPECT_EQ(bf0.caps_.max_clients, 64u);
    EXPECT_EQ(bf0.caps_.default_recv_queue_size, 32u);
    EXPECT_EQ(bf0.caps_.max_msg_size, 4080u);
    EXPECT_EQ(bf0.caps_.max_send_tasks, 16384u); // not overridden
    EXPECT_EQ(bf0.privilege_.rule_, privilege_policy::rule::group);
    EXPECT_EQ(bf0.privilege_.group_, "doca");
    EXPECT_EQ(bf0.privilege_.origin_, "t.json");
    EXPECT_EQ(bf1.privilege_.rule_, privilege_policy::rule::anyone);
    EXPECT_EQ(bf1.model_, "BlueField-2");
    EXPECT_EQ(bf1.mode_, bf_mode::nic);
    EXPECT_EQ(bf1.port_rate_bps_, 100'000'000'000ull);

    const doca_devinfo *h0 = dev(*t, side::host, "b1:00.0");
    ASSERT_NE(h0, nullptr);
    EXPECT_EQ(h0->func_type(), DOCA_PCI_FUNC_TYPE_PF); // the PF is the first match, not the SF
    EXPECT_EQ(h0->mac(), (std::array<uint8_t, 6>{0x02, 0, 0, 0x10, 0, 1}));
    EXPECT_EQ(h0->ipv4(), (std::array<uint8_t, 4>{192, 168, 100, 1}));
    EXPECT_EQ(h0->vuid(), "MT2334XZ0K5DHpf0");

    // Host SF: its parent's PCI address, its own identity.
    const doca_devinfo *sf = t->find_function("bf0/host/0000:b1:00.0/sf88");
    ASSERT_NE(sf, nullptr);
    EXPECT_EQ(sf->func_type(), DOCA_PCI_FUNC_TYPE_SF);
    EXPECT_EQ(sf->pci_addr(), "0000:b1:00.0");
    EXPECT_EQ(sf->sf_num(), 88u);
    EXPECT_EQ(sf->sf_index(), 2u);
    EXPECT_EQ(sf->ibdev_name(), "mlx5_4");
    EXPECT_EQ(sf->iface_name(), "ens1f0s88");
    // DPU SF.
    const doca_devinfo *dsf = t->find_function("bf0/dpu/0000:03:00.0/sf0");
    ASSERT_NE(dsf, nullptr);
    EXPECT_EQ(dsf->iface_name(), "en3f0pf0sf0");
    EXPECT_EQ(dsf->ibdev_name(), "mlx5_2");
    EXPECT_EQ(dsf->sf_index(), 0u);
    EXPECT_TRUE(dsf->server_capable());
    EXPECT_FALSE(dsf->manages_representors());

    const doca_devinfo *p0 = dev(*t, side::dpu, "03:00.0");
    ASSERT_EQ(p0->representors().size(), 4u);
    EXPECT_EQ(p0->representors()[2]->name(), "pf0vf1");
    EXPECT_EQ(p0->representors()[3]->name(), "pf0sf88");
    EXPECT_EQ(p0->representors()[3]->func_type(), DOCA_PCI_FUNC_TYPE_SF);
    EXPECT_EQ(p0->representors()[3]->host_function(), sf);

    // Second BlueField: host numbering continues, its Arm side restarts; NIC mode.
    const doca_devinfo *ca = dev(*t, side::host, "ca:00.0");
    ASSERT_NE(ca, nullptr);
    EXPECT_EQ(ca->ibdev_name(), "mlx5_5");
    EXPECT_EQ(ca->iface_name(), "ens2f0np0");
    EXPECT_FALSE(ca->client_capable());
    const doca_devinfo *d4 = dev(*t, side::dpu, "04:00.0");
    ASSERT_NE(d4, nullptr);
    EXPECT_EQ(d4->ibdev_name(), "mlx5_0");
    EXPECT_FALSE(d4->server_capable());
    EXPECT_FALSE(d4->manages_representors());
    EXPECT_EQ(t->devices().size(), 8u + 2u);
}

TEST(TopologyFile, MinimalAndCaseInsensitivePci)
{
    auto t = parse_ok(
        one_bf("", R"([{"pci": "0000:B1:00.0"}])",
               R"([{"pci": "0000:03:00.0", "representors": [{"host_function": "b1:00.0"}]}])"));
    ASSERT_NE(t, nullptr);
    EXPECT_NE(dev(*t, side::host, "b1:00.0"), nullptr);
    EXPECT_EQ(t->bluefields()[0]->model_, "BlueField-3");
    EXPECT_EQ(t->bluefields()[0]->serial_, "MT2334SC0000");
    // A DPU device without representors is valid; so is an empty representor list.
    EXPECT_NE(parse_ok(one_bf("", R"([{"pci": "b1:00.0"}])",
                              R"([{"pci": "03:00.0", "representors": []}])")),
              nullptr);
}

TEST(TopologyFile, FromFile)
{
    std::string path = write_temp(one_bf(R"("mode": "nic", )"));
    std::string err;
    auto t = topology::from_file(path, &err);
    ASSERT_NE(t, nullptr) << err;
    EXPECT_EQ(t->origin(), path);
    std::remove(path.c_str());

    t = topology::from_file("/nonexistent/softcomch/topo.json", &err);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(
        err,
        "/nonexistent/softcomch/topo.json: cannot open topology file: No such file or directory");

    path = write_temp("{\n  \"bluefields\": [\n    {\"id\": \"bf0\" \"x\": 1}\n  ]\n}\n");
    t = topology::from_file(path, &err);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(err, path + ":3:18: expected ',' or '}' after an object member, found '\"'");
    std::remove(path.c_str());
}

// SOFTCOMCH_TOPOLOGY=bluefield-2: the built-in machine as a BlueField-2, with its engines.
TEST(TopologyFile, NamedBuiltinModels)
{
    std::string err;
    auto bf2 = topology::from_file("bluefield-2", &err);
    ASSERT_NE(bf2, nullptr) << err;
    auto bf3 = topology::from_file("bluefield-3", &err);
    ASSERT_NE(bf3, nullptr) << err;
    const auto builtin = topology::builtin();
    EXPECT_EQ(bf2->bluefields()[0]->model_, "BlueField-2");
    EXPECT_EQ(bf3->bluefields()[0]->model_, "BlueField-3");
    EXPECT_EQ(bf2->origin(), "built-in bluefield-2");
    // Same functions as the default machine.
    EXPECT_EQ(bf2->devices().size(), builtin->devices().size());
    const auto e2 = engine_caps::of_model(bf2->bluefields()[0]->model_);
    const auto e3 = engine_caps::of_model(bf3->bluefields()[0]->model_);
    EXPECT_TRUE(e2.sha && e2.compress_deflate && e2.decompress_deflate && !e2.decompress_lz4);
    EXPECT_TRUE(!e3.sha && !e3.compress_deflate && e3.decompress_deflate && e3.decompress_lz4);
    // Any other name is a path.
    EXPECT_EQ(topology::from_file("bluefield-4", &err), nullptr);
    EXPECT_NE(err.find("cannot open topology file"), std::string::npos) << err;
}

// ------------------------------------------------------------------------------------------------
// file format: each class of error
// ------------------------------------------------------------------------------------------------

TEST(TopologyFile, SyntaxErrorsHaveLineAndColumn)
{
    EXPECT_EQ(parse_error("{\"bluefields\": [}"), "t.json:1:17: unexpected '}', expected a value");
    EXPECT_EQ(parse_error(""), "t.json:1:1: unexpected end of input, expected a value");
}

TEST(TopologyFile, UnknownMembers)
{
    EXPECT_EQ(
        parse_error(R"({"bluefields": [], "extra": 1})"),
        "t.json: $.extra: unknown member \"extra\" (allowed here: version, privilege, bluefields)");
    EXPECT_EQ(parse_error(one_bf(R"("modle": "dpu", )")),
              "t.json: $.bluefields[0].modle: unknown member \"modle\" (allowed here: id, model, "
              "mode, serial, "
              "comch_caps, dma_caps, privilege, host, dpu)");
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "representors": []}])"))
                  .find("$.bluefields[0].host[0].representors: unknown member"),
              std::string::npos);
    EXPECT_NE(
        parse_error(
            one_bf(
                "", R"([{"pci": "b1:00.0"}])",
                R"([{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0", "x": 1}]}])"))
            .find("$.bluefields[0].dpu[0].representors[0].x: unknown member"),
        std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("comch_caps": {"max_msg_sz": 10}, )"))
                  .find("$.bluefields[0].comch_caps.max_msg_sz: unknown capability \"max_msg_sz\""),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("privilege": {"representors": "root", "who": 1}, )"))
                  .find("$.bluefields[0].privilege.who: unknown member"),
              std::string::npos);
}

TEST(TopologyFile, DuplicatePciAddresses)
{
    EXPECT_EQ(
        parse_error(one_bf("", R"([{"pci": "b1:00.0"}, {"pci": "0000:B1:00.0", "pf": 1}])")),
        "t.json: $.bluefields[0].host[1].pci: duplicate PCI address 0000:b1:00.0 (also used by "
        "$.bluefields[0].host[0].pci)");
    // Across sides and across BlueFields too.
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "03:00.0"}])", R"([{"pci": "03:00.0"}])"))
                  .find("$.bluefields[0].dpu[0].pci: duplicate PCI address 0000:03:00.0"),
              std::string::npos);
    std::string two = R"({"bluefields": [
        {"id": "a", "host": [{"pci": "b1:00.0"}], "dpu": [{"pci": "03:00.0"}]},
        {"id": "b", "host": [{"pci": "ca:00.0"}], "dpu": [{"pci": "03:00.0"}]}]})";
    EXPECT_NE(parse_error(two).find(
                  "$.bluefields[1].dpu[0].pci: duplicate PCI address 0000:03:00.0 (also used by "
                  "$.bluefields[0].dpu[0].pci)"),
              std::string::npos);
}

TEST(TopologyFile, RepresentorTargets)
{
    EXPECT_EQ(parse_error(one_bf(
                  "", R"([{"pci": "b1:00.0"}])",
                  R"([{"pci": "03:00.0", "representors": [{"host_function": "b1:00.7"}]}])")),
              "t.json: $.bluefields[0].dpu[0].representors[0].host_function: no host function "
              "0000:b1:00.7 in "
              "BlueField bf0 (a representor must point to a function listed under \"host\")");
    std::string cross = R"({"bluefields": [
        {"id": "a", "host": [{"pci": "b1:00.0"}], "dpu": [{"pci": "03:00.0"}]},
        {"id": "b", "host": [{"pci": "ca:00.0"}],
         "dpu": [{"pci": "04:00.0", "representors": [{"host_function": "b1:00.0"}]}]}]})";
    EXPECT_NE(parse_error(cross).find(
                  "host function 0000:b1:00.0 belongs to BlueField a; a representor can only "
                  "stand for a host function of its own BlueField (b)"),
              std::string::npos);
    EXPECT_NE(
        parse_error(one_bf("", R"([{"pci": "b1:00.0"}])",
                           R"([{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"},
                                                                         {"host_function": "b1:00.0"}]}])"))
            .find("representors[1].host_function: duplicate representor of host function "
                  "0000:b1:00.0"),
        std::string::npos);
    EXPECT_NE(
        parse_error(
            one_bf(
                "", R"([{"pci": "b1:00.0"}])",
                R"([{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0", "sf": 3}]}])"))
            .find("no host function SF 3 at 0000:b1:00.0"),
        std::string::npos);
    EXPECT_NE(
        parse_error(one_bf("", R"([{"pci": "b1:00.0"}])",
                           R"([{"pci": "03:00.0"}, {"type": "sf", "pf": 0, "sf": 1,
                                      "representors": []}])"))
            .find("$.bluefields[0].dpu[1].representors: only a DPU-side PF manages representors"),
        std::string::npos);
    EXPECT_NE(
        parse_error(one_bf("", R"([{"pci": "b1:00.0"}, {"pci": "b1:00.1"}])",
                           R"([{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"},
                                      {"host_function": "b1:00.1", "name": "pf0hpf"}]}])"))
            .find("duplicate representor name pf0hpf"),
        std::string::npos);
}

TEST(TopologyFile, FunctionErrors)
{
    EXPECT_EQ(parse_error(one_bf("", R"([{"pci": "b1:0.0"}])")),
              "t.json: $.bluefields[0].host[0].pci: malformed PCI address \"b1:0.0\" (expected "
              "\"BB:DD.F\" or "
              "\"DDDD:BB:DD.F\", hexadecimal)");
    EXPECT_NE(
        parse_error(one_bf("", R"([{"pci": "b1:00.0\u0000x"}])")).find("malformed PCI address"),
        std::string::npos);
    EXPECT_EQ(parse_error(one_bf("", R"([{"pci": 7}])")),
              "t.json: $.bluefields[0].host[0].pci: expected a string, found integer");
    EXPECT_EQ(parse_error(one_bf("", R"([{"type": "pf"}])")),
              "t.json: $.bluefields[0].host[0]: missing required member \"pci\"");
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "type": "vf", "vf": 0}])"))
                  .find("host[0]: a vf needs a \"pf\" member"),
              std::string::npos);
    EXPECT_NE(
        parse_error(
            one_bf("",
                   R"([{"pci": "b1:00.0"}, {"pci": "b1:00.2", "type": "vf", "pf": 1, "vf": 0}])"))
            .find("host[1].pf: no PF with index 1 on the host side of BlueField bf0"),
        std::string::npos);
    EXPECT_NE(parse_error(
                  one_bf("", R"([{"pci": "b1:00.0"}, {"pci": "b1:00.2", "type": "vf", "pf": 0}])"))
                  .find("a vf needs a \"vf\" member"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "vf": 0}])"))
                  .find("\"vf\" is only meaningful for type \"vf\""),
              std::string::npos);
    EXPECT_NE(
        parse_error(
            one_bf("",
                   R"([{"pci": "b1:00.0"}, {"pci": "b1:00.1", "type": "sf", "pf": 0, "sf": 1}])"))
            .find("an SF has the PCI address of its parent PF (0000:b1:00.0), not 0000:b1:00.1"),
        std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0"}, {"pci": "b1:00.1", "pf": 0}])"))
                  .find("host[1].pf: duplicate PF index 0 on the host side"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0"}, {"type": "sf", "pf": 0, "sf": 1},
                                        {"type": "sf", "pf": 0, "sf": 1}])"))
                  .find("host[2].sf: duplicate SF 1 of PF 0"),
              std::string::npos);
    EXPECT_NE(
        parse_error(
            one_bf("", R"([{"pci": "b1:00.0"}, {"type": "sf", "pf": 0, "sf": 1, "sf_index": 4},
                                        {"type": "sf", "pf": 0, "sf": 2, "sf_index": 4}])"))
            .find("duplicate SF index 4"),
        std::string::npos);
    EXPECT_NE(parse_error(
                  one_bf("", R"([{"pci": "b1:00.0", "type": "vf", "pf": 0, "vf": 0}])", R"([{"pci":
                                        "03:00.0", "type": "vf", "pf": 0, "vf": 0}])"))
                  .find("no PF with index 0"),
              std::string::npos);
    EXPECT_NE(
        parse_error(one_bf("", R"([{"pci": "b1:00.0"}])", R"([{"pci": "03:00.0", "type": "vf"}])"))
            .find("unknown function type \"vf\" (expected \"pf\" or \"sf\" on the DPU side)"),
        std::string::npos);
    EXPECT_NE(
        parse_error(one_bf("", R"([{"pci": "b1:00.0", "ibdev": "mlx5_1"}, {"pci": "b1:00.1"}])"))
            .find("host[1].ibdev: duplicate ibdev name mlx5_1 (also used by "
                  "$.bluefields[0].host[0].ibdev)"),
        std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "iface": "a-very-long-interface"}])"))
                  .find("interface name must be 1 to 15 characters long"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "iface": "eth 0"}])"))
                  .find("invalid character"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "mac": "01:00:00:00:00:01"}])"))
                  .find("multicast"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "mac": "02:00:00:00:00"}])"))
                  .find("malformed MAC address"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "ipv4": "10.0.0.256"}])"))
                  .find("malformed IPv4 address"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([{"pci": "b1:00.0", "pf": 256}])"))
                  .find("value 256 out of range [0, 255]"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf("", R"([])"))
                  .find("$.bluefields[0].host: expected at least 1 element(s)"),
              std::string::npos);
}

TEST(TopologyFile, BlueFieldErrors)
{
    EXPECT_EQ(parse_error(R"({"version": 2, "bluefields": []})"),
              "t.json: $.version: unsupported version 2 (this SoftComch reads version 1)");
    EXPECT_EQ(parse_error(R"({"bluefields": []})"),
              "t.json: $.bluefields: expected at least 1 element(s)");
    EXPECT_EQ(parse_error(R"({"version": 1})"),
              "t.json: $: missing required member \"bluefields\"");
    EXPECT_EQ(parse_error("[]"), "t.json: $: expected an object, found array");
    EXPECT_NE(parse_error(one_bf(R"("model": "BlueField-9", )"))
                  .find("$.bluefields[0].model: unknown device model \"BlueField-9\" (known: "
                        "\"BlueField-2\", "
                        "\"BlueField-3\")"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("mode": "zero-trust", )"))
                  .find("unknown mode \"zero-trust\" (expected \"dpu\" or \"nic\")"),
              std::string::npos);
    std::string dup = R"({"bluefields": [
        {"id": "a", "host": [{"pci": "b1:00.0"}], "dpu": [{"pci": "03:00.0"}]},
        {"id": "a", "host": [{"pci": "ca:00.0"}], "dpu": [{"pci": "04:00.0"}]}]})";
    EXPECT_NE(parse_error(dup).find("$.bluefields[1].id: duplicate BlueField id \"a\""),
              std::string::npos);
    EXPECT_NE(parse_error(R"({"bluefields": [{"id": "bf 0", "host": [], "dpu": []}]})")
                  .find("invalid character"),
              std::string::npos);
    EXPECT_NE(
        parse_error(one_bf(R"("comch_caps": {"max_msg_size": 0}, )")).find("value 0 out of range"),
        std::string::npos);
    EXPECT_NE(
        parse_error(one_bf(R"("comch_caps": {"max_msg_size": 4294967296}, )")).find("out of range"),
        std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("comch_caps": {"max_msg_size": 1.5}, )"))
                  .find("expected an integer, found number"),
              std::string::npos);
    EXPECT_NE(
        parse_error(
            one_bf(R"("comch_caps": {"default_recv_queue_size": 64, "max_recv_queue_size": 32}, )"))
            .find("default_recv_queue_size (64) is larger than max_recv_queue_size (32)"),
        std::string::npos);
    EXPECT_NE(
        parse_error(one_bf(R"("comch_caps": {"max_name_len": 1}, )")).find("must be at least 2"),
        std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("privilege": {"representors": "group"}, )"))
                  .find("rule \"group\" needs a \"group\" member"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("privilege": {"representors": "root", "group": "x"}, )"))
                  .find("\"group\" is only meaningful with"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("privilege": {"representors": "admins"}, )"))
                  .find("unknown rule \"admins\""),
              std::string::npos);
}

TEST(TopologyFile, CapsOverride)
{
    auto t = parse_ok(one_bf(
        R"("comch_caps": {"max_msg_size": 256, "max_clients": 1, "producer_max_buf_size": 4096}, )"));
    ASSERT_NE(t, nullptr);
    const comch_caps &c = t->devices()[0]->comch();
    EXPECT_EQ(c.max_msg_size, 256u);
    EXPECT_EQ(c.max_clients, 1u);
    EXPECT_EQ(c.producer_max_buf_size, 4096u);
    EXPECT_EQ(c.consumer_max_buf_size, 1u << 30);
    EXPECT_EQ(c.max_name_len, 120u);
}

TEST(TopologyFile, DmaCapsOverrideAndRange)
{
    auto t = parse_ok(one_bf(R"("dma_caps": {"max_buf_size": 4096, "max_buf_list_len": 1}, )"));
    ASSERT_NE(t, nullptr);
    const dma_caps &d = t->devices()[0]->dma();
    EXPECT_EQ(d.max_buf_size, 4096u);
    EXPECT_EQ(d.max_buf_list_len, 1u);
    EXPECT_EQ(d.max_num_tasks, dma_caps{}.max_num_tasks);
    // The effective document carries them, and reads back the same.
    auto again = parse_ok(json::dump(t->to_json()));
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->devices()[0]->dma(), d);
    EXPECT_NE(parse_error(one_bf(R"("dma_caps": {"max_buf_sz": 10}, )"))
                  .find("$.bluefields[0].dma_caps.max_buf_sz: unknown capability \"max_buf_sz\" "
                        "(known: max_buf_size, max_buf_list_len, max_num_tasks)"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("dma_caps": {"max_num_tasks": 0}, )")).find("out of range"),
              std::string::npos);
    EXPECT_NE(parse_error(one_bf(R"("dma_caps": {"max_buf_size": 2199023255553}, )"))
                  .find("out of range"),
              std::string::npos);
}

// ------------------------------------------------------------------------------------------------
// the process-wide view
// ------------------------------------------------------------------------------------------------

TEST(Machine, DefaultSeesBothSides)
{
    env_guard env;
    ::unsetenv("SOFTCOMCH_TOPOLOGY");
    ::unsetenv("SOFTCOMCH_SIDE");
    const machine_view &m = machine();
    ASSERT_EQ(m.status, DOCA_SUCCESS) << m.error;
    EXPECT_FALSE(m.side_filter.has_value());
    EXPECT_EQ(m.visible_devices().size(), 5u);
    EXPECT_EQ(m.topo->origin(), "built-in default");
    EXPECT_EQ(&machine(), &m); // built once
}

TEST(Machine, SideFilter)
{
    env_guard env;
    ::unsetenv("SOFTCOMCH_TOPOLOGY");
    ::setenv("SOFTCOMCH_SIDE", "host", 1);
    reset_machine_for_testing();
    auto devs = machine().visible_devices();
    ASSERT_EQ(devs.size(), 3u);
    for (doca_devinfo *d : devs)
        EXPECT_EQ(d->side(), side::host);

    ::setenv("SOFTCOMCH_SIDE", "dpu", 1);
    reset_machine_for_testing();
    devs = machine().visible_devices();
    ASSERT_EQ(devs.size(), 2u);
    for (doca_devinfo *d : devs)
        EXPECT_EQ(d->side(), side::dpu);

    ::setenv("SOFTCOMCH_SIDE", "", 1); // empty = unset
    reset_machine_for_testing();
    EXPECT_EQ(machine().visible_devices().size(), 5u);

    ::setenv("SOFTCOMCH_SIDE", "arm", 1);
    reset_machine_for_testing();
    const machine_view &m = machine();
    EXPECT_EQ(m.status, DOCA_ERROR_INITIALIZATION);
    EXPECT_EQ(m.topo, nullptr);
    EXPECT_EQ(m.error, "SOFTCOMCH_SIDE=\"arm\" is invalid: use \"host\" or \"dpu\", or leave it "
                       "unset to see both sides");
    EXPECT_TRUE(m.visible_devices().empty());
}

TEST(Machine, TopologyFromEnvironment)
{
    env_guard env;
    ::unsetenv("SOFTCOMCH_SIDE");
    std::string path = write_temp(doc_example());
    ::setenv("SOFTCOMCH_TOPOLOGY", path.c_str(), 1);
    reset_machine_for_testing();
    ASSERT_EQ(machine().status, DOCA_SUCCESS) << machine().error;
    EXPECT_EQ(machine().topo->origin(), path);
    EXPECT_EQ(machine().visible_devices().size(), 10u);
    std::remove(path.c_str());

    path = write_temp(
        one_bf("", R"([{"pci": "b1:00.0"}])",
               R"([{"pci": "03:00.0", "representors": [{"host_function": "b1:00.7"}]}])"));
    ::setenv("SOFTCOMCH_TOPOLOGY", path.c_str(), 1);
    reset_machine_for_testing();
    EXPECT_EQ(machine().status, DOCA_ERROR_INITIALIZATION);
    EXPECT_EQ(machine().error,
              "invalid topology (SOFTCOMCH_TOPOLOGY): " + path +
                  ": $.bluefields[0].dpu[0].representors[0].host_function: no host function "
                  "0000:b1:00.7 in BlueField bf0 (a representor must point to a function listed "
                  "under \"host\")");
    std::remove(path.c_str());
}

// ------------------------------------------------------------------------------------------------
// PCI addresses and privilege policy
// ------------------------------------------------------------------------------------------------

TEST(PciAddress, Canonical)
{
    std::string out;
    EXPECT_TRUE(canonical_pci_addr("b1:00.0", out));
    EXPECT_EQ(out, "0000:b1:00.0");
    EXPECT_TRUE(canonical_pci_addr("0000:B1:00.2", out));
    EXPECT_EQ(out, "0000:b1:00.2");
    EXPECT_TRUE(canonical_pci_addr("03:1f.7", out));
    EXPECT_EQ(out, "0000:03:1f.7");
    EXPECT_TRUE(canonical_pci_addr("ABCD:ef:0A.1", out));
    EXPECT_EQ(out, "abcd:ef:0a.1");

    out = "unchanged";
    for (const char *bad :
         {"",        "b1:00",    "b1:00.",   "b1:00.8",     "b1:20.0",        "b1:0.0",
          "b1-00.0", "b1:00:0",  "0b1:00.0", "000:b1:00.0", "00000:b1:00.0",  "0000.b1:00.0",
          "g1:00.0", " b1:00.0", "b1:00.0 ", "b1:00.0\n",   "0000:b1:00.0.0", "pci/b1:00.0",
          "b1:00.a", "0x:00.0"}) {
        EXPECT_FALSE(canonical_pci_addr(bad, out)) << "accepted \"" << bad << "\"";
    }
    EXPECT_FALSE(canonical_pci_addr(nullptr, out));
    EXPECT_EQ(out, "unchanged");
}

TEST(PciAddress, EqualHelper)
{
    uint8_t eq = 7;
    EXPECT_EQ(pci_addr_equal("t", "0000:b1:00.0", "b1:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 1);
    EXPECT_EQ(pci_addr_equal("t", "0000:b1:00.0", "0000:B1:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 1);
    EXPECT_EQ(pci_addr_equal("t", "0000:b1:00.0", "0001:b1:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 0);
    eq = 7;
    EXPECT_EQ(pci_addr_equal("t", "0000:b1:00.0", "b1.00.0", &eq), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(eq, 7);
}

TEST(Privilege, Rules)
{
    privilege_policy anyone;
    privilege_policy root;
    root.rule_ = privilege_policy::rule::root;
    root.origin_ = "p.json";
    privilege_policy group;
    group.rule_ = privilege_policy::rule::group;
    group.origin_ = "p.json";

    credentials user{1000, 1000, {1000}};
    credentials superuser{0, 0, {}};
    std::string why;
    EXPECT_TRUE(privilege_allows(anyone, user, &why));
    EXPECT_TRUE(privilege_allows(root, superuser, &why));
    EXPECT_FALSE(privilege_allows(root, user, &why));
    EXPECT_EQ(why, "the privilege policy of p.json reserves representors to root");

    // A group that exists everywhere: gid 0 ("root" on Linux).
    struct group *g0 = ::getgrgid(0);
    ASSERT_NE(g0, nullptr);
    group.group_ = g0->gr_name;
    EXPECT_FALSE(privilege_allows(group, user, &why));
    EXPECT_NE(why.find("members of group \"" + group.group_ + "\" (this process is not a member)"),
              std::string::npos);
    credentials member{1000, 1000, {1000, 0}};
    EXPECT_TRUE(privilege_allows(group, member, &why));
    credentials primary{1000, 0, {}};
    EXPECT_TRUE(privilege_allows(group, primary, &why));
    EXPECT_TRUE(privilege_allows(group, superuser, &why));

    group.group_ = "softcomch-no-such-group";
    EXPECT_FALSE(privilege_allows(group, member, &why));
    EXPECT_NE(why.find("which does not exist on this machine"), std::string::npos);
}

TEST(Privilege, CurrentAndOverride)
{
    credentials real = credentials::current();
    EXPECT_EQ(real.euid, ::geteuid());
    EXPECT_EQ(real.egid, ::getegid());
    credentials fake{4242, 4242, {7}};
    set_credentials_override(&fake);
    EXPECT_EQ(credentials::current().euid, 4242u);
    EXPECT_EQ(credentials::current().groups, std::vector<uint32_t>{7});
    set_credentials_override(nullptr);
    EXPECT_EQ(credentials::current().euid, ::geteuid());
}

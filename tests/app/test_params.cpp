// SPDX-License-Identifier: Apache-2.0
// The parameter table: every key reaches SystemConfig, ranges hold, presets apply.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "app/scenario/params.h"

using namespace rnic;
using namespace rnic::app;

TEST_CASE("every key docs/scenario-format.md names exists", "[app]") {
  for (const char* key : {"device.clock_mhz", "pcie.gen", "pcie.lanes", "pcie.mps", "pcie.mrrs",
                          "pcie.max_read_tags", "pcie.read_latency_ns", "mtt.cache_entries",
                          "mtt.cache_ways", "mpt.cache_entries", "wqe.fetch_batch", "qp.max_ord",
                          "qp.max_ird", "port.gbps", "port.mtu", "link.latency_ns"}) {
    INFO(key);
    CHECK(find_param(key) != nullptr);
  }
}

TEST_CASE("keys are unique and each setter writes what its getter reads", "[app]") {
  std::set<std::string> seen;
  for (const ParamDef& def : param_table()) {
    INFO(def.key);
    CHECK(seen.insert(def.key).second);
    SystemConfig config;
    if (def.kind == ParamDef::Kind::Choice) {
      // Set by name: every name of the choice, in index order, and never by number.
      const std::vector<std::string>& names = param_choices(def);
      REQUIRE(names.size() == size_t(def.max - def.min + 1));
      for (size_t i = 0; i < names.size(); ++i) {
        REQUIRE(set_param(config, def.key, names[i]) == "");
        CHECK(def.get(config) == double(i));
        CHECK(format_param_value(def, double(i)) == names[i]);
      }
      CHECK(set_param_value(config, def.key, 1, true) != "");
      continue;
    }
    // The minimum is a legal value for every rule in the table (powers of two included).
    REQUIRE(set_param_value(config, def.key, def.min, def.kind == ParamDef::Kind::Integer) == "");
    CHECK(def.get(config) == def.min);
    SystemConfig other;
    REQUIRE(set_param_value(other, def.key, def.max, def.kind == ParamDef::Kind::Integer) == "");
    CHECK(def.get(other) == def.max);
  }
}

TEST_CASE("set_param parses decimal and hex and writes the config", "[app]") {
  SystemConfig c;
  CHECK(set_param(c, "pcie.lanes", "8") == "");
  CHECK(c.rnic.pcie.lanes == 8);
  CHECK(set_param(c, "pcie.mrrs", "0x400") == "");
  CHECK(c.rnic.pcie.mrrs_bytes == 1024);
  CHECK(set_param(c, "device.clock_mhz", "312.5") == "");
  CHECK(c.rnic.timing.clock_mhz == 312.5);
  CHECK(set_param(c, "host.memory_bytes", "0x80000000") == "");
  CHECK(c.host_memory.size_bytes == 0x80000000ull);
  CHECK(set_param(c, "link.latency_ns", "0") == "");
  CHECK(c.fabric.link_latency_ns == 0);
}

TEST_CASE("a choice key takes its names and refuses anything else", "[app]") {
  SystemConfig c;
  CHECK(set_param(c, "protection.implementation", "lockstep") == "");
  CHECK(c.rnic.protection.implementation == ProtectionImplementation::Lockstep);
  CHECK(set_param(c, "protection.implementation", "rtl") == "");
  CHECK(c.rnic.protection.implementation == ProtectionImplementation::Rtl);
  CHECK(set_param(c, "protection.implementation", "verilog") ==
        "protection.implementation: \"verilog\" is not one of tlm, rtl, lockstep");
  CHECK(set_param(c, "protection.implementation", "1") ==
        "protection.implementation: \"1\" is not one of tlm, rtl, lockstep");
  CHECK(c.rnic.protection.implementation == ProtectionImplementation::Rtl);
  bool listed = false;
  for (const ParamValue& p : effective_params(c)) {
    if (p.key != "protection.implementation") continue;
    listed = true;
    CHECK(p.choice == "rtl");
  }
  CHECK(listed);
}

TEST_CASE("set_param refuses unknown keys, junk and out-of-range values", "[app]") {
  SystemConfig c;
  CHECK(set_param(c, "pcie.genx", "3") ==
        "unknown config key \"pcie.genx\"; did you mean \"pcie.gen\"?");
  CHECK(set_param(c, "PCIE.MRRS", "512") ==
        "unknown config key \"PCIE.MRRS\"; did you mean \"pcie.mrrs\"?");
  CHECK(set_param(c, "mtu", "512") == "unknown config key \"mtu\"; did you mean \"port.mtu\"?");
  CHECK(set_param_value(c, "qp.max_rd", 4, true) ==
        "unknown config key \"qp.max_rd\"; did you mean \"qp.max_ord\" or \"qp.max_ird\"?");
  CHECK(set_param(c, "nonsense", "3") == "unknown config key \"nonsense\" (see `rnicsim params`)");
  CHECK(set_param(c, "pcie.gen", "6") == "pcie.gen: 6 is out of range 1..5");
  CHECK(set_param(c, "pcie.gen", "0") == "pcie.gen: 0 is out of range 1..5");
  CHECK(set_param(c, "pcie.gen", "-1") == "pcie.gen: \"-1\" is not a non-negative integer");
  CHECK(set_param(c, "pcie.gen", "three") == "pcie.gen: \"three\" is not a non-negative integer");
  CHECK(set_param(c, "pcie.gen", "") == "pcie.gen: \"\" is not a non-negative integer");
  CHECK(set_param(c, "pcie.gen", "3.5") == "pcie.gen: \"3.5\" is not a non-negative integer");
  CHECK(set_param(c, "pcie.mps", "300") == "pcie.mps: 300 is not a power of two in 128..4096");
  CHECK(set_param(c, "pcie.mrrs", "8192") == "pcie.mrrs: 8192 is out of range 128..4096");
  CHECK(set_param(c, "pcie.mrrs", "64") == "pcie.mrrs: 64 is out of range 128..4096");
  CHECK(set_param(c, "port.mtu", "1500") == "port.mtu: 1500 is not a power of two in 256..4096");
  CHECK(set_param(c, "mtt.cache_entries", "0") ==
        "mtt.cache_entries: 0 is out of range 1..1048576");
  CHECK(set_param(c, "device.clock_mhz", "inf") == "device.clock_mhz: \"inf\" is not a number");
  CHECK(set_param(c, "device.clock_mhz", "0") == "device.clock_mhz: 0 is out of range 1..10000");
  CHECK(set_param(c, "pcie.gen", "99999999999999999999999") ==
        "pcie.gen: \"99999999999999999999999\" is not a non-negative integer");
  CHECK(set_param_value(c, "pcie.gen", 3.0, false) == "pcie.gen: must be an integer");
  // MaxTransferLength is 32 bits, as is a message's length: a 4 GiB request crashed the model.
  CHECK(set_param(c, "qp.max_transfer_bytes", "4294967296") ==
        "qp.max_transfer_bytes: 4294967296 is out of range 1..4294967295");
  // Nothing above changed the config.
  CHECK(c.rnic.pcie.gen == SystemConfig{}.rnic.pcie.gen);
  CHECK(c.rnic.pcie.mps_bytes == SystemConfig{}.rnic.pcie.mps_bytes);
  CHECK(c.rnic.qp.max_transfer_bytes == SystemConfig{}.rnic.qp.max_transfer_bytes);
}

TEST_CASE("check_config catches cache geometry and tables that do not fit", "[app]") {
  SystemConfig c;
  CHECK(check_config(c) == "");
  REQUIRE(set_param(c, "mtt.cache_ways", "3") == "");
  CHECK(check_config(c) == "mtt.cache_ways (3) must divide mtt.cache_entries (1024)");
  REQUIRE(set_param(c, "mtt.cache_ways", "1024") == "");
  CHECK(check_config(c) == "");
  REQUIRE(set_param(c, "host.memory_bytes", "0x4000000") == "");   // 64 MiB
  REQUIRE(set_param(c, "qp.max_mtt_entries", "0x1000000") == "");  // 128 MiB of MTT
  CHECK(check_config(c).find("do not fit in half of host.memory_bytes") != std::string::npos);
}

TEST_CASE("presets: default is the struct defaults, pcie-bench-gen3x8 its values", "[app]") {
  SystemConfig c;
  c.rnic.pcie.lanes = 2;
  REQUIRE(apply_preset(c, "default") == "");
  CHECK(c.rnic.pcie.lanes == SystemConfig{}.rnic.pcie.lanes);

  REQUIRE(apply_preset(c, "pcie-bench-gen3x8") == "");
  CHECK(c.rnic.pcie.gen == 3);
  CHECK(c.rnic.pcie.lanes == 8);
  CHECK(c.rnic.pcie.mps_bytes == 256);
  CHECK(c.rnic.pcie.mrrs_bytes == 512);
  CHECK(c.rnic.mtt.cache_entries == 64);
  CHECK(c.rnic.mtt.cache_entries % c.rnic.mtt.cache_ways == 0);
  CHECK(check_config(c) == "");

  CHECK(apply_preset(c, "gen9") ==
        "unknown preset \"gen9\" (known: default, connectx5, connectx3, connect-ib, connectx6, "
        "pcie-bench-gen3x8)");
  CHECK(apply_preset(c, "Default") == "unknown preset \"Default\"; did you mean \"default\"?");
}

TEST_CASE("presets: the NIC generations set what their sources say", "[app]") {
  SystemConfig c;
  REQUIRE(apply_preset(c, "connectx5") == "");
  CHECK(c.rnic.port.gbps == SystemConfig{}.rnic.port.gbps);  // the default's values
  CHECK(c.rnic.context.qpc.cache_entries == SystemConfig{}.rnic.context.qpc.cache_entries);

  REQUIRE(apply_preset(c, "connectx3") == "");
  CHECK(c.rnic.pcie.lanes == 8);
  CHECK(c.rnic.port.gbps == 54.55);  // FDR: 4 x 14.0625 Gb/s at 64b/66b
  CHECK(c.rnic.port.header_bytes == 34);  // InfiniBand framing, no Ethernet/IP/UDP
  CHECK(c.rnic.port.mtu_bytes == 2048);
  CHECK(c.rnic.qp.max_ord == 128);
  CHECK(check_config(c) == "");

  c = SystemConfig{};
  REQUIRE(apply_preset(c, "connectx6") == "");
  CHECK(c.rnic.pcie.gen == 4);
  CHECK(c.rnic.port.gbps == 200);
  CHECK(c.rnic.pcie.max_read_tags == 256);
  CHECK(c.rnic.wqe.cache_policy == WqeCachePolicy::Evict);
  CHECK(check_config(c) == "");

  c = SystemConfig{};
  REQUIRE(apply_preset(c, "pcie-bench-gen3x8") == "");
  CHECK(c.rnic.mtt.walk_ns == 260);  // the IOMMU's walk in the MTT's place
  CHECK(c.rnic.mtt.entries_per_fetch == 1);
  CHECK(c.rnic.mtt.max_outstanding_misses == 5);
}

TEST_CASE("effective_params lists every key once with its value", "[app]") {
  SystemConfig c;
  REQUIRE(set_param(c, "pcie.lanes", "4") == "");
  const auto values = effective_params(c);
  CHECK(values.size() == param_table().size());
  bool found = false;
  for (const ParamValue& v : values) {
    if (v.key == "pcie.lanes") {
      found = true;
      CHECK(v.is_integer);
      CHECK(v.value == 4);
    }
    if (v.key == "device.clock_mhz") CHECK_FALSE(v.is_integer);
  }
  CHECK(found);
}

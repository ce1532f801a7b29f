// SPDX-License-Identifier: Apache-2.0
// The config presets: a measured setup (pcie-bench-gen3x8) and NIC generations, each a list
// of values over the struct defaults (the default preset, a ConnectX-5). Where every value
// comes from, and which are assumptions chosen from the knees of published curves:
// docs/calibration.md, "Presets".
#include "app/scenario/params.h"

namespace rnic::app {

namespace {

// InfiniBand framing: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 per packet, with about 8 bytes of
// 64b/66b link framing (an assumption: the control block and its padding); no Ethernet, IP or
// UDP headers.
constexpr const char* kIbHeaderBytes = "34";

}  // namespace

const std::vector<Preset>& preset_table() {
  static const std::vector<Preset> presets = {
      {"default", "ConnectX-5-like device, PCIe gen3 x16, 100 Gb/s RoCEv2 port (the struct defaults)",
       {}},
      {"connectx5", "ConnectX-5, PCIe gen3 x16, 100 Gb/s RoCEv2: the default's values", {}},
      {"connectx3",
       "ConnectX-3 (mlx4), PCIe gen3 x8, 56 Gb/s FDR InfiniBand (2048-byte MTU): a small "
       "QP-context cache (72 contexts) with 2 misses in flight, so throughput falls steeply past "
       "about 64 QPs in use",
       {{"pcie.gen", "3"},
        {"pcie.lanes", "8"},
        {"port.gbps", "54.55"},
        {"port.mtu", "2048"},
        {"port.header_bytes", kIbHeaderBytes},
        {"qp.max_qps", "131000"},
        {"qp.max_ord", "128"},
        // Fitted to FaSST's ConnectX-3 curve (docs/calibration.md, "NIC generations").
        {"qpc.cache_entries", "72"},
        {"qpc.cache_ways", "72"},
        {"qpc.max_outstanding_misses", "2"}}},
      {"connect-ib",
       "Connect-IB (mlx5), PCIe gen3 x16, 56 Gb/s FDR InfiniBand (one port): a QP-context "
       "cache of 128 with 16 misses in flight, so throughput falls gradually from about 150 "
       "QPs in use",
       {{"pcie.gen", "3"},
        {"pcie.lanes", "16"},
        {"port.gbps", "54.55"},
        {"port.header_bytes", kIbHeaderBytes},
        // Fitted to FaSST's Connect-IB curve.
        {"qpc.cache_entries", "128"},
        {"qpc.max_outstanding_misses", "16"}}},
      {"connectx6",
       "ConnectX-6, PCIe gen4 x16, 200 Gb/s HDR InfiniBand, 8-bit PCIe tags, a 512-entry WQE "
       "cache that evicts prefetched WQEs (too many reads in flight make it slower)",
       {{"pcie.gen", "4"},
        {"pcie.lanes", "16"},
        {"pcie.max_read_tags", "256"},
        {"port.gbps", "200"},
        {"port.header_bytes", kIbHeaderBytes},
        {"qpc.cache_entries", "2048"},
        {"qpc.max_outstanding_misses", "32"},
        // SMART (ASPLOS'24) saw ConnectX-6 reads peak at 700-1,150 in flight in all and fall
        // beyond: a WQE cache that evicts prefetched WQEs, of about that many entries
        // (fitted to the knee; docs/calibration.md, "NIC generations").
        {"wqe.cache_policy", "evict"},
        {"wqe.cache_entries", "512"}}},
      {"pcie-bench-gen3x8",
       "the pcie-bench measurement setup (Neugebauer et al., SIGCOMM 2018): PCIe gen3 x8, MPS "
       "256, MRRS 512, an FPGA-class DMA engine (8-byte channels), and the host's IOMMU in "
       "place of the MTT: a 64-entry IOTLB, one translation per walk, walks of 260 ns, 5 in "
       "flight",
       {{"pcie.gen", "3"},
        {"pcie.lanes", "8"},
        {"pcie.mps", "256"},
        {"pcie.mrrs", "512"},
        {"pcie.read_latency_ns", "530"},
        {"dma.read_bytes_per_cycle", "8"},
        {"dma.read_channels", "4"},
        {"mtt.cache_entries", "64"},
        {"mtt.cache_ways", "64"},
        {"mtt.entries_per_fetch", "1"},
        {"mtt.walk_ns", "260"},
        {"mtt.max_outstanding_misses", "5"}}},
  };
  return presets;
}

}  // namespace rnic::app

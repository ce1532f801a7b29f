// SPDX-License-Identifier: Apache-2.0
// Plain parameter structs, grouped as a scenario sets them (`mtt.*`, `port.*`, ...). No JSON,
// no files: the app fills these. Each field carries its unit in its name; defaults are the
// `default` preset (ConnectX-5-like device, PCIe gen3 x16, 100 Gb/s port). Sources of the
// numbers: docs/calibration.md (its parameter table); every key and its default:
// docs/generated/config-reference.md. Each device unit takes its own struct (`Mtt::Config`,
// ...), which Rnic cuts from RnicConfig: a unit sees only what it uses.
#pragma once

#include <cstdint>

#include "model/rnic/abi/caps.h"

namespace rnic {

struct PcieConfig {
  uint32_t gen = 3;                  // PCIe generation 1..5: sets the per-lane rate and encoding
  uint32_t lanes = 16;               // link width
  uint32_t mps_bytes = 256;          // max payload size: posted writes and completions split here
  uint32_t mrrs_bytes = 512;         // max read request size: DMA reads split here
  uint32_t rcb_bytes = 64;           // read completion boundary
  uint32_t max_read_tags = 32;       // outstanding non-posted reads the device can have
  // Host round trip for a minimal (<= 64 B) read. 375: what one payload read adds to
  // perftest's ib_write_lat on mlx5 (1.32 us with -I 0 against 0.93 us inline); the
  // pcie-bench-gen3x8 preset's FPGA NIC measured 546 ns (530).
  uint32_t read_latency_ns = 375;
  uint32_t tlp_overhead_bytes = 24;  // header 16 + sequence 2 + LCRC 4 + framing 2 per TLP
  uint32_t mmio_latency_ns = 150;    // CPU posted MMIO write to the device register
  uint32_t write_latency_ns = 100;   // device posted write: sent on the link to visible in memory
};

// The device's DMA read datapath: each transfer (one DmaRequest) is reassembled in one channel
// and moved into on-chip buffers at the channel's width; read requests land in order per channel.
struct DmaConfig {
  uint32_t read_channels = 8;          // transfers moved in parallel
  uint32_t read_bytes_per_cycle = 32;  // channel datapath width, one beat per device cycle
};

struct HostMemoryConfig {
  uint64_t size_bytes = 1ull << 32;  // physical address space of the node
  uint32_t extra_latency_ns = 0;     // added to every device read: remote socket / not in LLC
  // Device reads are served one 64 B line at a time (model/host/line_service.h).
  uint32_t line_service_ns = 40;   // time a line read holds one of the host's read slots
  uint32_t lines_in_service = 32;  // line reads the host serves at once
  uint32_t poll_ns = 50;  // a spinning CPU sees a device write (data, CQE) this long after it lands
};

struct MttConfig {
  uint32_t cache_entries = 1024;  // translation cache entries (one page each)
  uint32_t cache_ways = 8;        // associativity; entries/ways sets, LRU in a set
  uint32_t lookup_cycles = 2;     // pipeline latency of a hit
  uint32_t lookup_ii_cycles = 1;  // initiation interval: a new page lookup at most this often
  uint32_t entries_per_fetch = 8; // MTT entries fetched per miss (one 64 B line of 8 B entries)
  uint32_t max_outstanding_misses = 8;  // miss-status registers: line fills in flight (1: blocking)
  // 0: a miss reads its line of entries by DMA over PCIe (a NIC's own table in host memory).
  // N: a miss is a page walk of N ns beside host memory and no PCIe traffic: an IOMMU
  // standing in for the MTT (the pcie-bench-gen3x8 preset), its walks in flight bounded by
  // max_outstanding_misses.
  uint32_t walk_ns = 0;
};

struct MptConfig {
  uint32_t cache_entries = 256;  // protection table (MPT) cache entries, fully associative LRU
  uint32_t check_cycles = 4;     // key/PD/rights/bounds check latency
  uint32_t check_ii_cycles = 1;  // initiation interval: a new check at most this often
  // Miss-status registers: entry reads in flight (1: blocking).
  uint32_t max_outstanding_misses = 8;
};

// What decides the protection checks (docs/rtl-cosim.md): the rules in C++ (the TLM twin), an
// RTL unit built with Verilator (the build's RNICSIM_RTL option), or both, every decision
// compared and the run stopped at the first divergence.
enum class ProtectionImplementation : uint8_t { Tlm, Rtl, Lockstep };

struct ProtectionUnitConfig {
  ProtectionImplementation implementation = ProtectionImplementation::Tlm;
  // Lockstep: the checks before a divergence (and it) replayed into the RTL's waveform; bounds
  // the VCD's size.
  uint32_t divergence_trace_checks = 64;
};

// One table's on-chip context cache (QPC or CQC) in the QP-context unit.
struct ContextCacheConfig {
  uint32_t cache_entries;           // entries held on chip
  uint32_t cache_ways;              // associativity; entries/ways sets, LRU in a set
  uint32_t max_outstanding_misses;  // miss-status registers: entry reads in flight (1: blocking)
};

// The QP-context unit: the one QPC/CQC cache the fetcher, the responder and the completion
// engine ask (the requester gets the context with each WQE). Sizes are not published by
// vendors; see docs/calibration.md for the reasoning.
struct QpContextConfig {
  ContextCacheConfig qpc{1024, 8, 8};
  ContextCacheConfig cqc{256, 8, 4};
  uint32_t lookup_cycles = 2;  // latency of a hit (QPC or CQC)
  // An evicted entry's running state (ring indices, PSNs) is written back to its table by a
  // posted DMA write, as a write-back context cache must; false keeps every QP's running
  // state on chip at no cost (an upper bound for the QP-scaling curve).
  bool write_back = true;
};

// What a WQE read does when the WQE buffer is full: wait for a slot (block), or take the slot
// of another QP's prefetched WQE, which is read again when its QP's turn comes (evict: the
// WQE-cache thrashing SMART, ASPLOS'24, measured on ConnectX-6).
enum class WqeCachePolicy : uint8_t { Block, Evict };

struct WqeConfig {
  uint32_t fetch_batch = 4;    // WQEs fetched per DMA read when that many are posted
  uint32_t prefetch_depth = 4; // batch reads in flight or buffered per QP (1: fetch on demand)
  uint32_t cache_entries = 64; // on-chip WQE buffer: WQEs fetched and not yet executed, all QPs
  WqeCachePolicy cache_policy = WqeCachePolicy::Block;  // the buffer full: block or evict
  uint32_t decode_cycles = 4;  // decode a fetched WQE
  uint32_t decode_ii_cycles = 1;  // initiation interval of the decoder
};

struct QpConfig {
  uint32_t max_ord = 16;  // outstanding RDMA reads per QP as requester (adapter limit)
  uint32_t max_ird = 16;  // reads in service per QP as responder (adapter limit)
  uint32_t max_qps = 262144;  // QP table (ConnectX-5 reports max_qp 262,144)
  uint32_t max_cqs = 65536;   // CQ table (ConnectX-5 reports 16,777,216; 65,536 covers
                              // a CQ per QP pair of the largest traffic flow)
  uint32_t max_mpt_entries = 4096;  // MRs + MWs
  uint32_t max_mtt_entries = 1u << 20;
  uint32_t max_sge = 4;
  uint32_t max_fr_pages = 256;  // FRMRPageCount
  uint64_t max_transfer_bytes = 1ull << 31;
  uint32_t rnr_retry_count = 7;   // sends retried this often while the peer has no receive
  uint32_t rnr_timer_ns = 10000;  // wait before each retry (IB minimum RNR NAK timer 0.01 ms)
};

// The responder's NIC-wide resources, shared by all QPs (per QP: qp.max_ird).
struct ResponderConfig {
  // Read-response contexts: reads in service at once, all QPs. mlx5 reports max_res_rd_atom =
  // max_qp_rd_atom x max_qp (16 x 262,144 on ConnectX-5): no shared bound below the per-QP
  // ones, so the default is that product and never binds; smaller values model a NIC that
  // keeps read state on chip.
  uint32_t read_contexts = 16u * 262144u;
};

struct PortConfig {
  // Data rate after line encoding: 100GbE's 100; FDR InfiniBand's 4 x 14.0625 Gb/s at 64b/66b
  // is 54.55 (a real number for that reason).
  double gbps = 100;
  uint32_t mtu_bytes = 4096;       // payload per packet: read responses are segmented here
  // Bytes per packet on the wire besides the payload (the RETH of a request and the AETH of a
  // response are added to it). RoCEv2: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 +
  // FCS 4, with the preamble 8 and the minimum inter-frame gap 12: 82. InfiniBand (the
  // connectx3, connect-ib and connectx6 presets): LRH 8 + BTH 12 + ICRC 4 + VCRC 2, with
  // about 8 of link framing: 34.
  uint32_t header_bytes = 82;
  uint32_t pipeline_cycles = 16;   // transmit or receive pipeline latency
};

struct FabricConfig {
  // Propagation, switch cut-through and both ends' MAC/PHY (FEC at 100 Gb/s), one way.
  // 490: perftest's default ib_write_lat on mlx5 (inline, BlueFlame: 0.93 us) less the rest of
  // the path as modeled; ib_read_lat's 1.91 us is then a prediction (docs/calibration.md).
  uint32_t link_latency_ns = 490;
};

// How the simulation runs (not what it models).
struct SimConfig {
  // false: cycle-approximate (every unit synchronises with simulated time before it acts).
  // true: fast functional mode: loosely timed with temporal decoupling (the WQE fetcher and
  // requester run ahead with annotated delays, the switch delivers packets by a direct call
  // instead of a delivery process; links, ports and switch outputs stop modelling contention,
  // since bookings arrive out of time order). Same statuses and bytes; times approximate.
  bool fast = false;
};

struct DeviceTiming {
  double clock_mhz = 500.0;          // device core clock
  uint32_t doorbell_cycles = 4;      // decode an MMIO doorbell
  uint32_t responder_cycles = 8;     // parse an incoming request
  uint32_t completion_cycles = 4;    // build a completion entry
  // Initiation intervals: a unit accepts a new transaction at most every N cycles.
  uint32_t doorbell_ii_cycles = 1;
  uint32_t responder_ii_cycles = 1;
  uint32_t completion_ii_cycles = 1;
};

// The host driver's choices.
struct DriverConfig {
  // BlueFlame (ConnectX): a post that rings for one WQE writes the WQE itself by MMIO with its
  // doorbell, and the device skips the ring read for it.
  bool blueflame = false;
};

struct RnicConfig {
  DriverConfig driver;
  DeviceTiming timing;
  PcieConfig pcie;
  DmaConfig dma;
  MttConfig mtt;
  MptConfig mpt;
  ProtectionUnitConfig protection;
  QpContextConfig context;
  WqeConfig wqe;
  QpConfig qp;
  ResponderConfig responder;
  PortConfig port;
  SimConfig sim;
  // Adapter capability flags reported by NDK_ADAPTER_INFO (docs/behaviour.md, Flags).
  uint32_t adapter_flags = caps::kInOrderDma | caps::kRdmaReadLocalInvalidateSupported;
};

struct SystemConfig {
  RnicConfig rnic;
  HostMemoryConfig host_memory;
  FabricConfig fabric;
  // Put a ProtectionMonitor on every device's host-memory port. It reads the tables from host
  // memory for every DMA and holds it to the request it serves: a golden check, at a cost in
  // simulation speed.
  bool protection_monitor = true;
};

}  // namespace rnic

// SPDX-License-Identifier: Apache-2.0
// Holding your own implementation against rnicsim, decision by decision (docs/validation.md,
// "A worked example"). The platform of embed_platform.cpp (its own memory and interconnect, two
// rnicsim RNICs) runs RDMA reads and writes from node A to node B, valid and invalid. Node B's
// device reports every decision to a DecisionSink; for each decision of the responder's access
// checks, the sink asks "your" implementation (their_responder_checks.h) the same question,
// with the same inputs (the request and the MPT entry as the device read it), and compares the
// outcome and the rule. The first divergence stops the simulation.
//
// Usage: embed_compare [--seeded-bug]
//   --seeded-bug  your implementation checks the rights before the PD (a wrong rule, the right
//                 status)
// Exit 0: every decision agreed (PASS); 1: a divergence (request, both verdicts); 2: the run
// itself went wrong (FAIL).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>

#include "host_api/adapter.h"
#include "host_api/ndk.h"
#include "model/config/config.h"
#include "model/fabric/switch.h"
#include "model/instruments/decision_sink.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/msg/messages.h"
#include "platform.h"
#include "their_responder_checks.h"

namespace {

// rnicsim's MPT entry, in your design's terms.
their::Object their_object(const rnic::MptEntry& e) {
  their::Object o;
  switch (e.kind) {
    case rnic::MptKind::Mr:
    case rnic::MptKind::FastMr: o.kind = their::ObjectKind::Region; break;
    case rnic::MptKind::Mw: o.kind = their::ObjectKind::Window; break;
    default: o.kind = their::ObjectKind::None; break;
  }
  if (e.state == rnic::MptState::Unused) o.kind = their::ObjectKind::None;
  o.valid = e.state == rnic::MptState::Valid;
  o.tag = e.tag;
  o.pd = e.pd;
  o.base = e.base_va;
  o.length = e.length;
  o.remote_read = e.access & rnic::kAccessRemoteRead;
  o.remote_write = e.access & rnic::kAccessRemoteWrite;
  o.bound_qp = e.bound_qpn;
  o.zero_based = e.zero_based;
  return o;
}

// Compares the responder's access decisions of one device with yours; stops at the first
// divergence.
class Comparator : public rnic::DecisionSink {
 public:
  explicit Comparator(bool seeded_bug) : seeded_bug_(seeded_bug) {}

  std::string current_case;  // what the driver is doing (for the report)
  unsigned decisions = 0;    // every decision the device reported
  unsigned compared = 0;     // the ones your unit makes
  std::string divergence;    // the first, empty while they agree

  void decided(const rnic::DecisionRecord& r) override {
    ++decisions;
    const bool theirs = r.list == rnic::CheckList::RemoteRead ||
                        r.list == rnic::CheckList::RemoteWrite;
    if (!theirs || !r.request || !divergence.empty()) return;
    ++compared;
    const rnic::ProtectionRequest& req = *r.request;
    their::RemoteAccess access;
    access.write = r.list == rnic::CheckList::RemoteWrite;
    access.token = req.token;
    access.qp = req.qpn;
    access.pd = req.pd;
    access.address = req.va;
    access.length = req.length;
    const their::Verdict yours =
        their::check_remote_access(access, their_object(r.object), seeded_bug_);
    const bool allowed = !r.decision.failed();
    const std::string rule = allowed ? "" : rnic::rule_name(r.decision.rule);
    if (yours.allowed == allowed && yours.rule == rule) return;
    char line[512];
    std::snprintf(line, sizeof line,
                  "decision %u (%s): RDMA %s of %llu bytes at 0x%llx, token 0x%08x, responder "
                  "QP %u in PD %u\n  rnicsim: %s %s\n  yours:   %s %s%s",
                  compared, current_case.c_str(), access.write ? "write" : "read",
                  (unsigned long long)req.length, (unsigned long long)req.va, req.token,
                  req.qpn, req.pd, allowed ? "allowed" : "refused",
                  allowed ? "" : rule.c_str(), yours.allowed ? "allowed" : "refused",
                  yours.rule.c_str(),
                  yours.allowed == allowed
                      ? "\n  (the same outcome: a comparison of statuses alone would pass)"
                      : "");
    divergence = line;
    sc_core::sc_stop();  // stopped at the first divergence, the state as it was
  }

 private:
  bool seeded_bug_;
};

}  // namespace

int sc_main(int argc, char* argv[]) {
  using namespace rnic::ndk;
  using rnic::host::Adapter;
  using rnic::host::BufferFill;

  bool seeded_bug = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seeded-bug") == 0) {
      seeded_bug = true;
    } else {
      std::fprintf(stderr, "usage: embed_compare [--seeded-bug]\n");
      return 2;
    }
  }
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  rnic::RnicConfig config;  // the `default` preset
  rnic::FabricConfig fabric;
  embed::Host a("A", config, 0);
  embed::Host b("B", config, 1);
  rnic::Switch fabric_switch("switch", rnic::Switch::Config{fabric, config.port, false});
  for (embed::Host* host : {&a, &b}) {
    host->nic.net_isock.bind(fabric_switch.port_tsock);
    fabric_switch.port_isock.bind(host->nic.net_tsock);
  }
  Adapter drv_a(a.cpu, config, embed::kMemoryBytes, 0, 1);
  Adapter drv_b(b.cpu, config, embed::kMemoryBytes, 1, 1);
  Comparator comparator(seeded_bug);
  b.nic.attach_decisions(&comparator);  // node B answers every access: the responder

  std::string failure = "the driver thread did not finish";
  unsigned cases = 0;
  sc_core::sc_spawn([&] {
    using namespace rnic::host;
    auto ok = [&failure](NTSTATUS status, const std::string& what) {
      if (status != STATUS_SUCCESS) failure = what + ": status 0x" + std::to_string(status);
      return status == STATUS_SUCCESS;
    };
    Buffer sink, source, readonly, foreign;
    PdHandle pd_a = 0, pd_b = 0, pd_other = 0;
    CqHandle cq_a = 0, cq_b = 0;
    MrHandle mr_sink = 0, mr_rw = 0, mr_ro = 0, mr_foreign = 0;
    MwHandle mw_here = 0, mw_elsewhere = 0;
    if (!ok(drv_a.AllocBuffer(4096, 4096, false, BufferFill::Byte, 0xEE, &sink), "sink") ||
        !ok(drv_b.AllocBuffer(65536, 4096, true, BufferFill::Incrementing, 0, &source),
            "source") ||
        !ok(drv_b.AllocBuffer(4096, 4096, false, BufferFill::Byte, 1, &readonly), "buffer") ||
        !ok(drv_b.AllocBuffer(4096, 4096, false, BufferFill::Byte, 2, &foreign), "buffer") ||
        !ok(drv_a.CreatePd(&pd_a), "CreatePd") || !ok(drv_b.CreatePd(&pd_b), "CreatePd") ||
        !ok(drv_b.CreatePd(&pd_other), "CreatePd") ||
        !ok(drv_a.CreateCq(256, &cq_a), "CreateCq") ||
        !ok(drv_b.CreateCq(256, &cq_b), "CreateCq") ||
        !ok(drv_a.CreateMr(pd_a, false, &mr_sink), "CreateMr") ||
        !ok(drv_a.RegisterMr(mr_sink, sink, 0, 4096,
                             NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_RDMA_READ_SINK),
            "RegisterMr sink") ||
        !ok(drv_b.CreateMr(pd_b, false, &mr_rw), "CreateMr") ||
        !ok(drv_b.RegisterMr(mr_rw, source, 0, 65536,
                             NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE),
            "RegisterMr read-write") ||
        !ok(drv_b.CreateMr(pd_b, false, &mr_ro), "CreateMr") ||
        !ok(drv_b.RegisterMr(mr_ro, readonly, 0, 4096, NDK_MR_FLAG_ALLOW_REMOTE_READ),
            "RegisterMr read-only") ||
        !ok(drv_b.CreateMr(pd_other, false, &mr_foreign), "CreateMr") ||
        !ok(drv_b.RegisterMr(mr_foreign, foreign, 0, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE),
            "RegisterMr other PD") ||
        !ok(drv_b.CreateMw(pd_b, &mw_here), "CreateMw") ||
        !ok(drv_b.CreateMw(pd_b, &mw_elsewhere), "CreateMw")) {
      sc_core::sc_stop();
      return;
    }
    // A connected QP pair per access: a refused access breaks its connection (R5.peer_error).
    struct Pair {
      QpHandle a = 0, b = 0;
    };
    uint64_t next_context = 0x100;
    auto connect = [&](Pair* pair) {
      return ok(drv_a.CreateQp(pd_a, cq_a, 16, 16, 4, 4, next_context++, &pair->a), "CreateQp") &&
             ok(drv_b.CreateQp(pd_b, cq_b, 16, 16, 4, 4, next_context++, &pair->b), "CreateQp") &&
             ok(Adapter::Connect(drv_a, pair->a, drv_b, pair->b), "Connect");
    };
    auto bind = [&](QpHandle qp, MwHandle mw, uint64_t offset) {
      if (!ok(drv_b.NdkBind(qp, next_context++, mr_rw, mw, drv_b.ObjectBaseVa(mr_rw) + offset,
                            4096, NDK_OP_FLAG_ALLOW_REMOTE_READ),
              "NdkBind"))
        return false;
      const auto done = drv_b.WaitCq(cq_b, 1, sc_core::sc_time(1, sc_core::SC_MS));
      return ok(done.size() == 1 ? done[0].Status : STATUS_IO_TIMEOUT, "Bind completion");
    };
    // One access from A to B on `pair`; false when its outcome is not `expect_success` (or the
    // run stopped at a divergence).
    auto access = [&](const char* name, const Pair& pair, bool write, uint64_t address,
                      uint32_t token, uint32_t length, bool expect_success) {
      comparator.current_case = name;
      ++cases;
      NDK_SGE sge{drv_a.ObjectBaseVa(mr_sink), length, drv_a.GetLocalTokenFromMr(mr_sink)};
      const NTSTATUS posted =
          write ? drv_a.NdkWrite(pair.a, cases, &sge, 1, address, token, 0)
                : drv_a.NdkRead(pair.a, cases, &sge, 1, address, token, 0);
      if (!ok(posted, std::string(name) + ": post")) return false;
      const auto done = drv_a.WaitCq(cq_a, 1, sc_core::sc_time(1, sc_core::SC_MS));
      if (!comparator.divergence.empty()) return false;
      if (done.size() != 1) {
        failure = std::string(name) + ": no completion within 1 ms";
        return false;
      }
      if ((done[0].Status == STATUS_SUCCESS) != expect_success) {
        failure = std::string(name) + ": completion status 0x" + std::to_string(done[0].Status);
        return false;
      }
      return true;
    };
    const uint64_t rw = drv_b.ObjectBaseVa(mr_rw);
    const uint32_t rw_token = drv_b.GetRemoteTokenFromMr(mr_rw);
    const uint32_t stale_token = (rw_token & ~0xFFu) | ((rw_token + 1) & 0xFFu);
    Pair p[9], binder;
    bool good = connect(&binder);
    for (Pair& pair : p) good = good && connect(&pair);
    good = good && bind(p[6].b, mw_here, 8192) && bind(binder.b, mw_elsewhere, 12288);
    good = good &&
           access("read inside a region", p[0], false, rw + 100, rw_token, 256, true) &&
           access("write inside a region", p[1], true, rw + 4096, rw_token, 64, true) &&
           access("read past a region's end", p[2], false, rw + 65536 - 128, rw_token, 256,
                  false) &&
           access("read with a stale tag", p[3], false, rw, stale_token, 64, false) &&
           access("write into a read-only region", p[4], true, drv_b.ObjectBaseVa(mr_ro),
                  drv_b.GetRemoteTokenFromMr(mr_ro), 64, false) &&
           access("read from a local-only region of another PD", p[5], false,
                  drv_b.ObjectBaseVa(mr_foreign), drv_b.GetRemoteTokenFromMr(mr_foreign), 64,
                  false) &&
           access("read through a window bound to this QP", p[6], false, rw + 8192,
                  drv_b.GetRemoteTokenFromMw(mw_here), 256, true) &&
           access("read through a window bound to another QP", p[7], false, rw + 12288,
                  drv_b.GetRemoteTokenFromMw(mw_elsewhere), 256, false) &&
           access("read with a token that names no object", p[8], false, rw,
                  rnic::make_token(0xFFFF, 0), 64, false);
    if (good) failure.clear();
    sc_core::sc_stop();
  });
  sc_core::sc_start();

  if (!comparator.divergence.empty()) {
    std::printf("embed-compare: first divergence after %u agreeing decisions, at %s\n",
                comparator.compared - 1, comparator.divergence.c_str());
    return 1;
  }
  const unsigned errors = sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) +
                          sc_core::sc_report_handler::get_count(sc_core::SC_WARNING);
  if (!failure.empty() || errors != 0 || comparator.compared != cases) {
    std::printf("embed-compare: FAIL: %s (%u accesses, %u decisions compared, SystemC "
                "warnings+errors %u)\n",
                failure.empty() ? "a decision per access expected" : failure.c_str(), cases,
                comparator.compared, errors);
    return 2;
  }
  std::printf("embed-compare: PASS: %u responder decisions agree on outcome and rule (%u "
              "decisions reported by node B in all)\n",
              comparator.compared, comparator.decisions);
  return 0;
}

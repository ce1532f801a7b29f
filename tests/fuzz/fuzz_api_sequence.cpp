// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: random sequences of host API calls (NDK verbs and control calls, with
// valid and invalid handles, tokens, addresses, sizes and flags) on a live two-node model with
// the protection monitor on. Built and run by scripts/fuzz --target api.
//
// One platform for the whole process (SystemC elaborates once, E529); each input runs on the
// host CPU's SystemC thread, in simulated time, on objects of its own: a baseline (a buffer,
// PD, CQ, connected QP, registered MR and MW per node) and whatever its calls create. At the
// end the input closes everything it opened (CloseQp completes every request first), so the
// next input finds empty tables, and the checks below run. A failed check traps (a finding):
//  - every verb that returned STATUS_SUCCESS has exactly one completion (none when it had
//    SILENT_SUCCESS and succeeded), of its type and QP context; an inline failure has none;
//    no completion is seen twice or for a request never posted (contexts are unique in the
//    process); a CQ that overflowed (its flag set) may lack entries;
//  - each send or receive queue completes in posting order, and CANCELLED after its first
//    error completion;
//  - the protection monitors flagged nothing, SystemC reported no warning or error;
//  - the input finished within 2 s of simulated time and the device then went idle;
//  - closing every object succeeds, and the adapters are back to what they had before.
// Input encoding (tests/fuzz/README.md): one op byte, then its argument bytes, read from
// the front; missing bytes read as 0, and 0 always means the default (the baseline object,
// an in-range offset, a valid token), so short inputs make sensible calls.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <systemc>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "host_api/adapter.h"
#include "model/platform/system.h"

namespace {

using namespace rnic;
using namespace rnic::host;
using namespace rnic::ndk;
using sc_core::SC_MS;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

[[noreturn]] __attribute__((format(printf, 1, 2))) void finding(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fputs("fuzz_api_sequence: FINDING: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::fflush(stderr);
  __builtin_trap();
}

// RNICSIM_FUZZ_TRACE=1: each call and its status on stderr (to read a finding's input).
__attribute__((format(printf, 1, 2))) void log_call(const char* format, ...) {
  static const bool on = std::getenv("RNICSIM_FUZZ_TRACE") != nullptr;
  if (!on) return;
  std::va_list args;
  va_start(args, format);
  std::fprintf(stderr, "[%s] ", sc_core::sc_time_stamp().to_string().c_str());
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
}

// The platform: small tables and memory, so "table full" and "memory exhausted" are reached
// inside one input.
SystemConfig fuzz_config() {
  SystemConfig c;
  c.rnic.qp.max_qps = 8;
  c.rnic.qp.max_cqs = 8;
  c.rnic.qp.max_mpt_entries = 32;
  c.rnic.qp.max_mtt_entries = 8192;  // 32 MiB of registrations
  c.rnic.qp.max_fr_pages = 32;
  c.host_memory.size_bytes = 64ull << 20;
  c.protection_monitor = true;
  // RNICSIM_FUZZ_FAST=1: the fast functional mode (sim.fast), whose units run nested.
  c.rnic.sim.fast = std::getenv("RNICSIM_FUZZ_FAST") != nullptr;
  return c;
}

// The fuzz input, read from the front; zeros once used up.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  uint16_t u16() { return uint16_t(u8() | u8() << 8); }
  uint32_t u32() { return uint32_t(u16()) | uint32_t(u16()) << 16; }
  uint64_t u64() { return uint64_t(u32()) | uint64_t(u32()) << 32; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

enum class Verb { Read, Write, Send, Bind, FastRegister, Invalidate, Receive };

uint32_t completion_type(Verb v) {
  switch (v) {
    case Verb::Read:
      return NdkOperationTypeRead;
    case Verb::Write:
      return NdkOperationTypeWrite;
    case Verb::Send:
      return NdkOperationTypeSend;
    case Verb::Bind:
      return NdkOperationTypeBind;
    case Verb::FastRegister:
      return NdkOperationTypeFastRegister;
    case Verb::Invalidate:
      return NdkOperationTypeInvalidate;
    case Verb::Receive:
      return NdkOperationTypeReceive;
  }
  return 0;
}

struct Posted {
  Verb verb;
  bool silent;
  uint32_t node;
  CqHandle cq;
  uint64_t qp_context;
  int completions = 0;
};

struct QpRec {
  QpHandle h = 0;
  uint64_t context = 0;
  CqHandle cq = 0;
  uint32_t peer_node = 1;
  bool open = true;
};
struct MrRec {
  MrHandle h = 0;
  uint32_t token = 0;  // the last token seen (stale once the MR moves on)
  bool open = true;
};
struct MwRec {
  MwHandle h = 0;
  uint32_t token = 0;
  ND_MW_DESCRIPTOR descriptor;
  bool open = true;
};
struct BufRec {
  Buffer b;
  bool open = true;
};

// One node's objects of the current input; index 0 of each list is the baseline's.
struct NodeObjects {
  Adapter* adapter = nullptr;
  std::vector<BufRec> buffers;
  std::vector<std::pair<PdHandle, bool>> pds;  // handle, open
  std::vector<std::pair<CqHandle, bool>> cqs;
  std::vector<QpRec> qps;
  std::vector<MrRec> mrs;
  std::vector<MwRec> mws;
  std::deque<AsyncRequest> asyncs;  // stable addresses for asynchronous registrations
  size_t created = 0;
};

struct Platform {
  SystemConfig config = fuzz_config();
  System system{config, {"A", "B"}};
  Adapter a{system.node(0).cpu, config.rnic, config.host_memory.size_bytes, 0, 1};
  Adapter b{system.node(1).cpu, config.rnic, config.host_memory.size_bytes, 1, 2};
  Adapter& adapter(uint32_t node) { return node ? b : a; }
};

constexpr size_t kMaxOps = 64;
constexpr size_t kMaxCreatedPerNode = 24;
const sc_time kInputLimit(2, sc_core::SC_SEC);

// Runs one input's calls on the host CPU thread and checks what came back.
class Session {
 public:
  Session(Platform& p, Input& in, uint64_t& next_context)
      : p_(p), in_(in), next_context_(next_context) {
    nodes_[0].adapter = &p.a;
    nodes_[1].adapter = &p.b;
  }

  void run() {
    baseline();
    for (size_t i = 0; i < kMaxOps && !in_.empty(); ++i) step();
    finish();
  }

 private:
  // --- picking arguments ---
  uint32_t node() { return in_.u8() & 1; }
  template <class T>
  T* pick(std::vector<T>& list, bool* raw, uint32_t* raw_value) {
    const uint8_t sel = in_.u8();
    *raw = false;
    if (sel < 0xF8 && !list.empty()) return &list[sel % list.size()];
    *raw = true;
    *raw_value = sel == 0xF8 ? 0 : sel == 0xF9 ? 0xffffffffu : in_.u32();
    return nullptr;
  }
  QpHandle qp(uint32_t n, QpRec** rec = nullptr) {
    bool raw;
    uint32_t v;
    QpRec* r = pick(nodes_[n].qps, &raw, &v);
    if (rec) *rec = r;
    return r ? r->h : v;
  }
  CqHandle cq(uint32_t n) {
    bool raw;
    uint32_t v;
    auto* r = pick(nodes_[n].cqs, &raw, &v);
    return r ? r->first : v;
  }
  PdHandle pd(uint32_t n) {
    bool raw;
    uint32_t v;
    auto* r = pick(nodes_[n].pds, &raw, &v);
    return r ? r->first : v;
  }
  MrRec* mr(uint32_t n, uint32_t* h) {
    bool raw;
    MrRec* r = pick(nodes_[n].mrs, &raw, h);
    if (r) *h = r->h;
    return r;
  }
  MwRec* mw(uint32_t n, uint32_t* h) {
    bool raw;
    MwRec* r = pick(nodes_[n].mws, &raw, h);
    if (r) *h = r->h;
    return r;
  }
  Buffer* buffer(uint32_t n) {
    auto& list = nodes_[n].buffers;
    const uint8_t sel = in_.u8();
    if (list.empty()) return nullptr;
    if (sel == 0xFF) return &forged_;  // not an allocation of the adapter
    return &list[sel % list.size()].b;
  }
  uint64_t length() {
    const uint8_t sel = in_.u8();
    static const uint64_t table[] = {64,         0,         1,   4096,       4097,
                                     65536,      256 << 10, 8,   1ull << 31, (1ull << 31) + 1,
                                     0xffffffff, 4095,      100, 32 << 10};
    const size_t n = sizeof table / sizeof table[0];
    if (sel % 16 < n) return table[sel % 16];
    return sel % 16 == n ? in_.u16() : in_.u32();
  }
  // An address relative to an object at [base, base + len).
  uint64_t address(uint64_t base, uint64_t len) {
    switch (in_.u8() % 8) {
      case 0:
        return base;
      case 1:
        return base + in_.u16() % (len ? len : 1);
      case 2:
        return base + len - std::min<uint64_t>(len, 8);
      case 3:
        return base + len;
      case 4:
        return base - 1;
      case 5:
        return 0;
      case 6:
        return in_.u64();
      default:
        return base + in_.u32();
    }
  }
  uint32_t token(uint32_t current) {
    switch (in_.u8() % 6) {
      case 0:
        return current;
      case 1:
        return current ^ 1;  // another tag: stale
      case 2:
        return (current & 0xffffff00u) | uint8_t(current - 1);  // the previous tag
      case 3:
        return 0;
      case 4:
        return in_.u32();
      default:
        return current + 0x100;  // the next index
    }
  }
  // 0: `usual` (what the verb needs to succeed); below 0x80: those low flags; else any 16 bits
  // (DEFER, RDMA_READ_SINK, RDMA_READ_LOCAL_INVALIDATE, undefined ones).
  uint32_t flags(uint32_t usual = 0) {
    const uint8_t sel = in_.u8();
    return sel == 0 ? usual : sel < 0x80 ? sel : in_.u16();
  }

  // A closed object keeps the last token it had: a stale one.
  uint32_t current_token(uint32_t n, MrRec* r) {
    if (r && r->open) r->token = nodes_[n].adapter->GetRemoteTokenFromMr(r->h);
    return r ? r->token : 0;
  }
  uint32_t current_token(uint32_t n, MwRec* r) {
    if (r && r->open) r->token = nodes_[n].adapter->GetRemoteTokenFromMw(r->h);
    return r ? r->token : 0;
  }

  // SGEs on node n: each names an MR of the node (or a raw token) and a range.
  std::vector<NDK_SGE> sgl(uint32_t n, uint32_t* count, bool* null_list) {
    const uint8_t sel = in_.u8() % 8;
    *null_list = false;
    uint32_t nsge = sel == 0 ? 1 : sel == 1 ? 0 : sel <= 5 ? sel : 1;
    if (sel == 6) nsge = 255;
    if (sel == 7) *null_list = true;
    *count = nsge;
    std::vector<NDK_SGE> out;
    for (uint32_t i = 0; i < std::min<uint32_t>(nsge, 8); ++i) {
      uint32_t h = 0;
      MrRec* r = mr(n, &h);
      Adapter& a = *nodes_[n].adapter;
      const uint64_t base = a.ObjectBaseVa(h);
      const uint64_t len = a.ObjectLength(h);
      NDK_SGE sge;
      sge.Buffer = address(base, len);
      const uint64_t l = length();
      sge.BufferLength = uint32_t(std::min<uint64_t>(l, 0xffffffffu));
      sge.MemoryRegionToken = token(current_token(n, r));
      out.push_back(sge);
    }
    while (out.size() < nsge) out.push_back(out.empty() ? NDK_SGE{} : out.back());
    return out;
  }

  // --- bookkeeping of posted requests ---
  const QpRec* open_qp(uint32_t n, QpHandle h) {
    for (const QpRec& q : nodes_[n].qps)
      if (q.open && q.h == h) return &q;
    return nullptr;
  }

  template <class Call>
  void post(uint32_t n, QpHandle h, Verb verb, bool silent, Call call) {
    const uint64_t context = next_context_++;
    const NTSTATUS status = call(context);
    log_call("  verb %d on node %u QP %u: request 0x%llx -> 0x%x %s", int(verb), n, h,
             (unsigned long long)context, status, nodes_[n].adapter->last_error().c_str());
    if (status != STATUS_SUCCESS) {
      if (status == STATUS_PENDING) finding("a verb returned STATUS_PENDING");
      refused_.insert(context);
      return;
    }
    const QpRec* q = open_qp(n, h);
    if (!q) finding("a verb on unknown QP %u of node %u was accepted", h, n);
    posted_[context] = Posted{verb, silent, n, q->cq, q->context, 0};
  }

  void check(uint32_t n, const NDK_RESULT_EX& r) {
    log_call("  completion on node %u: request 0x%llx type %u status 0x%x", n,
             (unsigned long long)r.RequestContext, r.Type, r.Status);
    if (refused_.count(r.RequestContext))
      finding("request 0x%llx failed inline but completed (status 0x%x)",
              (unsigned long long)r.RequestContext, r.Status);
    auto it = posted_.find(r.RequestContext);
    if (it == posted_.end())
      finding("completion for unknown request 0x%llx on node %u (type %u, status 0x%x)",
              (unsigned long long)r.RequestContext, n, r.Type, r.Status);
    Posted& p = it->second;
    if (++p.completions > 1)
      finding("request 0x%llx completed twice", (unsigned long long)r.RequestContext);
    if (p.node != n)
      finding("request 0x%llx completed on the other node", (unsigned long long)r.RequestContext);
    const uint32_t type = completion_type(p.verb);
    const bool type_ok = r.Type == type || (p.verb == Verb::Receive &&
                                            r.Type == NdkOperationTypeReceiveAndInvalidate);
    if (!type_ok)
      finding("request 0x%llx: completion type %u, expected %u",
              (unsigned long long)r.RequestContext, r.Type, type);
    if (r.QPContext != p.qp_context)
      finding("request 0x%llx: QP context 0x%llx, expected 0x%llx",
              (unsigned long long)r.RequestContext, (unsigned long long)r.QPContext,
              (unsigned long long)p.qp_context);
    if (p.silent && r.Status == STATUS_SUCCESS && p.verb != Verb::Receive)
      finding("request 0x%llx: SILENT_SUCCESS but a success completion",
              (unsigned long long)r.RequestContext);
    // One queue (a QP's send or receive queue) completes in posting order (contexts grow
    // with it), and after its first error everything completes CANCELLED (R4.order,
    // R4.error.flush_later).
    QueueOrder& q = order_[p.qp_context * 2 + (p.verb == Verb::Receive ? 1 : 0)];
    if (r.RequestContext <= q.last)
      finding("request 0x%llx completed after request 0x%llx, posted later",
              (unsigned long long)r.RequestContext, (unsigned long long)q.last);
    if (q.failed && r.Status != STATUS_CANCELLED)
      finding(
          "request 0x%llx completed 0x%x after an error completion of its queue, not "
          "CANCELLED",
          (unsigned long long)r.RequestContext, r.Status);
    q.last = r.RequestContext;
    if (r.Status != STATUS_SUCCESS) q.failed = true;
  }

  void reap(uint32_t n, CqHandle h) {
    NDK_RESULT_EX results[16];
    for (;;) {
      const size_t got = nodes_[n].adapter->GetCqResults(h, results, 16);
      for (size_t i = 0; i < got; ++i) check(n, results[i]);
      if (got < 16) return;
    }
  }
  void reap_all() {
    for (uint32_t n = 0; n < 2; ++n)
      for (auto& [h, open] : nodes_[n].cqs)
        if (open) reap(n, h);
  }

  bool may_create(uint32_t n) { return nodes_[n].created++ < kMaxCreatedPerNode; }

  // --- the baseline: one working connection and its memory ---
  void baseline() {
    for (uint32_t n = 0; n < 2; ++n) {
      NodeObjects& o = nodes_[n];
      Adapter& a = *o.adapter;
      start_usage_[n] = a.Usage();
      if (start_usage_[n].qps || start_usage_[n].buffers)
        finding("node %u still has objects of an earlier input", n);
      BufRec buf;
      require(a.AllocBuffer(65536, 4096, true, BufferFill::Incrementing, 0, &buf.b), "AllocBuffer");
      o.buffers.push_back(buf);
      PdHandle pd = 0;
      require(a.CreatePd(&pd), "CreatePd");
      o.pds.push_back({pd, true});
      CqHandle cq = 0;
      require(a.CreateCq(64, &cq), "CreateCq");
      o.cqs.push_back({cq, true});
      QpRec q;
      q.context = next_qp_context();
      q.cq = cq;
      q.peer_node = n ^ 1;
      require(a.CreateQp(pd, cq, 64, 64, 4, 4, q.context, &q.h), "CreateQp");
      o.qps.push_back(q);
      MrRec m;
      require(a.CreateMr(pd, false, &m.h), "CreateMr");
      require(a.RegisterMr(m.h, buf.b, 0, 65536, 0xf), "RegisterMr");
      m.token = a.GetRemoteTokenFromMr(m.h);
      o.mrs.push_back(m);
      MwRec w;
      require(a.CreateMw(pd, &w.h), "CreateMw");
      o.mws.push_back(w);
    }
    require(Adapter::Connect(p_.a, nodes_[0].qps[0].h, p_.b, nodes_[1].qps[0].h), "Connect");
  }
  void require(NTSTATUS status, const char* call) {
    if (status != STATUS_SUCCESS) finding("baseline %s failed: 0x%x", call, status);
  }
  uint64_t next_qp_context() { return 0x5150000000000000ull | next_context_++; }

  // --- one op ---
  void step() {
    const uint8_t op = in_.u8() % 33;
    const uint32_t n = node();
    log_call("op %u on node %u", op, n);
    NodeObjects& o = nodes_[n];
    Adapter& a = *o.adapter;
    switch (op) {
      case 0:
        verb_read(n, false);
        break;
      case 1:
        verb_read(n, true);
        break;
      case 2:
        verb_send(n, false);
        break;
      case 3:
        verb_receive(n);
        break;
      case 4:
        verb_bind(n, false);
        break;
      case 5:
        verb_fast_register(n);
        break;
      case 6:
        verb_invalidate(n);
        break;
      case 7:
        verb_send(n, true);
        break;
      case 8:
        verb_read(n, false);
        break;
      case 9:
        verb_read(n, true);
        break;
      case 10:
        verb_bind(n, true);
        break;
      case 11: {  // Flush
        const QpHandle h = qp(n);
        a.NdkFlush(h);
        break;
      }
      case 12: {  // poll: consume what is there, or wait a little for more
        const CqHandle h = cq(n);
        const uint8_t k = in_.u8();
        if (k & 1) {
          for (const NDK_RESULT_EX& r : a.WaitCq(h, k >> 5, sc_time(double(k & 0x1e) * 2, SC_US)))
            check(n, r);
        } else if (o.cqs.size()) {
          reap(n, h);
        }
        break;
      }
      case 13:
        sc_core::wait(sc_time(double(in_.u16()) * 10, SC_NS));
        break;
      case 14: {  // AllocBuffer
        if (!may_create(n)) break;
        static const uint64_t sizes[] = {4096,       1,       4095,         8192,
                                         65536,      1 << 20, 32ull << 20,  0,
                                         1ull << 40, ~0ull,   3 * 4096 + 5, 2ull << 20};
        const uint8_t s = in_.u8();
        const uint64_t size = sizes[s % 12];
        const uint32_t page = (s & 0x40) ? 2097152 : (s & 0x80) ? in_.u32() : 4096;
        const uint8_t how = in_.u8();
        BufferFill fill = BufferFill(how % 4);
        if (size > (1 << 20)) fill = BufferFill::Zero;  // big buffers stay untouched
        BufRec rec;
        if (a.AllocBuffer(size, page, how & 4, fill, how, &rec.b) == STATUS_SUCCESS)
          o.buffers.push_back(rec);
        break;
      }
      case 15: {  // FreeBuffer
        Buffer* b = buffer(n);
        if (!b) break;
        if (a.FreeBuffer(*b) == STATUS_SUCCESS) {
          for (BufRec& r : o.buffers)
            if (&r.b == b) r.open = false;
        }
        break;
      }
      case 16: {  // CreatePd
        if (!may_create(n)) break;
        PdHandle h = 0;
        if (a.CreatePd(&h) == STATUS_SUCCESS) o.pds.push_back({h, true});
        break;
      }
      case 17: {  // CreateCq
        if (!may_create(n)) break;
        static const uint32_t depths[] = {64, 1, 2, 0, 16, 65536, 65537, 0xffffffff};
        const uint8_t s = in_.u8();
        const uint32_t depth = s < 0xf0 ? depths[s % 8] : in_.u16();
        CqHandle h = 0;
        if (a.CreateCq(depth, &h) == STATUS_SUCCESS) o.cqs.push_back({h, true});
        break;
      }
      case 18: {  // CreateQp
        if (!may_create(n)) break;
        static const uint32_t depths[] = {64, 1, 0, 2, 16384, 16385, 0xffffffff, 8};
        QpRec q;
        const PdHandle pdh = pd(n);
        q.cq = cq(n);
        const uint8_t s = in_.u8();
        const uint32_t sd = depths[s % 8], rd = depths[(s >> 3) % 8];
        const uint8_t r = in_.u8();
        const uint32_t ord = r & 0x40 ? in_.u32() : r % 8,
                       ird = r & 0x80 ? in_.u32() : (r >> 3) % 8;
        q.context = next_qp_context();
        q.peer_node = n ^ 1;
        if (a.CreateQp(pdh, q.cq, sd, rd, ord, ird, q.context, &q.h) == STATUS_SUCCESS)
          o.qps.push_back(q);
        break;
      }
      case 19: {  // Connect (either node, loopback, twice, closed)
        QpRec* ra = nullptr;
        QpRec* rb = nullptr;
        const uint32_t nb = node();
        const QpHandle ha = qp(n, &ra), hb = qp(nb, &rb);
        if (Adapter::Connect(a, ha, *nodes_[nb].adapter, hb) == STATUS_SUCCESS) {
          if (ra) ra->peer_node = nb;
          if (rb) rb->peer_node = n;
        }
        break;
      }
      case 20: {  // CreateMr
        if (!may_create(n)) break;
        MrRec m;
        const PdHandle pdh = pd(n);
        if (a.CreateMr(pdh, in_.u8() & 1, &m.h) == STATUS_SUCCESS) o.mrs.push_back(m);
        break;
      }
      case 21: {  // RegisterMr, synchronous or asynchronous
        uint32_t h = 0;
        mr(n, &h);
        Buffer* b = buffer(n);
        if (!b) break;
        const uint64_t off = in_.u8() % 4 == 0 ? 0 : in_.u32() % (b->size + 2);
        const uint64_t len = in_.u8() % 4 == 0 ? b->size - std::min(off, b->size) : length();
        const uint32_t mr_flags = in_.u8() % 32;
        if (in_.u8() & 1) {
          o.asyncs.emplace_back();
          const NTSTATUS s = a.RegisterMr(h, *b, off, len, mr_flags, false, &o.asyncs.back());
          if (s != STATUS_PENDING) o.asyncs.pop_back();
        } else {
          a.RegisterMr(h, *b, off, len, mr_flags, in_.u8() == 0xff);
        }
        break;
      }
      case 22: {  // DeregisterMr
        uint32_t h = 0;
        mr(n, &h);
        a.DeregisterMr(h);
        break;
      }
      case 23: {  // CreateMw
        if (!may_create(n)) break;
        MwRec w;
        const PdHandle pdh = pd(n);
        if (a.CreateMw(pdh, &w.h) == STATUS_SUCCESS) o.mws.push_back(w);
        break;
      }
      case 24: {  // InitializeFastRegisterMr
        uint32_t h = 0;
        mr(n, &h);
        const uint8_t s = in_.u8();
        const uint32_t pages = s < 0xf0 ? s % 40 : in_.u32();
        a.InitializeFastRegisterMr(h, pages, s & 1);
        break;
      }
      case 25: {  // CloseQp
        QpRec* r = nullptr;
        const QpHandle h = qp(n, &r);
        const NTSTATUS s = a.CloseQp(h);
        if (s == STATUS_IO_TIMEOUT) finding("CloseQp of QP %u on node %u timed out", h, n);
        if (s == STATUS_SUCCESS) mark_qp_closed(n, h);
        break;
      }
      case 26: {  // CloseCq: what it holds is consumed first (a close discards it)
        const CqHandle h = cq(n);
        reap(n, h);
        note_overflow(n, h);
        if (a.CloseCq(h) == STATUS_SUCCESS) {
          for (auto& [c, open] : o.cqs)
            if (c == h && open) open = false;
        }
        break;
      }
      case 27: {  // CloseMr
        uint32_t h = 0;
        mr(n, &h);
        if (a.CloseMr(h) == STATUS_SUCCESS) {
          for (MrRec& m : o.mrs)
            if (m.h == h) m.open = false;
        }
        break;
      }
      case 28: {  // CloseMw
        uint32_t h = 0;
        mw(n, &h);
        if (a.CloseMw(h) == STATUS_SUCCESS) {
          for (MwRec& w : o.mws)
            if (w.h == h) w.open = false;
        }
        break;
      }
      case 29: {  // ClosePd
        const PdHandle h = pd(n);
        if (a.ClosePd(h) == STATUS_SUCCESS) {
          for (auto& [d, open] : o.pds)
            if (d == h) open = false;
        }
        break;
      }
      case 30: {  // the CPU's own accesses and queries
        Buffer* b = buffer(n);
        uint8_t bytes[256] = {};
        const uint64_t off = in_.u32(), len = in_.u8();
        if (b && b != &forged_) {
          a.WriteBuffer(*b, off % (b->size + 2), bytes, len);
          a.ReadBuffer(*b, off % (b->size + 2), bytes, len);
        }
        uint32_t h = in_.u32();
        (void)a.ObjectBaseVa(h);
        (void)a.ObjectLength(h);
        (void)a.GetRemoteTokenFromMr(h);
        (void)a.GetRemoteTokenFromMw(h);
        (void)a.QpCq(h);
        (void)a.CqOverflowed(h);
        (void)a.QueryAdapterInfo();
        break;
      }
      case 31: {  // user-mode Read/Write through a window descriptor
        verb_nd(n, in_.u8() & 1);
        break;
      }
      case 32: {  // the DMA benchmark engine
        Buffer* b = buffer(n);
        if (!b || b == &forged_ || b->size > (1 << 20)) break;
        const uint8_t s = in_.u8();
        a.RunDmaBench(*b, uint32_t(length() % (1 << 20)), s % 16, (s >> 4) % 5, s & 1, s, nullptr);
        break;
      }
    }
  }

  void note_overflow(uint32_t n, CqHandle h) {
    if (nodes_[n].adapter->CqOverflowed(h)) overflowed_.insert(uint64_t(n) << 32 | h);
  }

  void mark_qp_closed(uint32_t n, QpHandle h) {
    for (QpRec& q : nodes_[n].qps)
      if (q.h == h && q.open) q.open = false;
  }

  // --- verbs ---
  uint32_t remote_target(uint32_t peer, uint64_t* addr) {
    // An MR or a window of the peer, or nothing in particular.
    Adapter& pa = *nodes_[peer].adapter;
    const uint8_t which = in_.u8() % 3;
    uint32_t h = 0, current = 0;
    if (which == 1) {
      MwRec* w = mw(peer, &h);
      current = current_token(peer, w);
    } else {
      MrRec* m = mr(peer, &h);
      current = current_token(peer, m);
    }
    *addr = address(pa.ObjectBaseVa(h), pa.ObjectLength(h));
    return token(which == 2 ? in_.u32() : current);
  }

  void verb_read(uint32_t n, bool write) {
    QpRec* r = nullptr;
    const QpHandle h = qp(n, &r);
    uint32_t count = 0;
    bool null_list = false;
    const std::vector<NDK_SGE> sges = sgl(n, &count, &null_list);
    uint64_t addr = 0;
    const uint32_t tok = remote_target(r ? r->peer_node : n ^ 1, &addr);
    const uint32_t f = flags();
    Adapter& a = *nodes_[n].adapter;
    const NDK_SGE* list = null_list ? nullptr : sges.data();
    post(n, h, write ? Verb::Write : Verb::Read, f & NDK_OP_FLAG_SILENT_SUCCESS, [&](uint64_t c) {
      return write ? a.NdkWrite(h, c, list, count, addr, tok, f)
                   : a.NdkRead(h, c, list, count, addr, tok, f);
    });
  }

  void verb_send(uint32_t n, bool invalidate) {
    QpRec* r = nullptr;
    const QpHandle h = qp(n, &r);
    uint32_t count = 0;
    bool null_list = false;
    const std::vector<NDK_SGE> sges = sgl(n, &count, &null_list);
    uint64_t addr = 0;
    const uint32_t tok = invalidate ? remote_target(r ? r->peer_node : n ^ 1, &addr) : 0;
    const uint32_t f = flags();
    Adapter& a = *nodes_[n].adapter;
    const NDK_SGE* list = null_list ? nullptr : sges.data();
    post(n, h, Verb::Send, f & NDK_OP_FLAG_SILENT_SUCCESS, [&](uint64_t c) {
      return invalidate ? a.NdkSendAndInvalidate(h, c, list, count, tok, f)
                        : a.NdkSend(h, c, list, count, f);
    });
  }

  void verb_receive(uint32_t n) {
    const QpHandle h = qp(n);
    uint32_t count = 0;
    bool null_list = false;
    const std::vector<NDK_SGE> sges = sgl(n, &count, &null_list);
    Adapter& a = *nodes_[n].adapter;
    const NDK_SGE* list = null_list ? nullptr : sges.data();
    post(n, h, Verb::Receive, false, [&](uint64_t c) { return a.NdkReceive(h, c, list, count); });
  }

  void verb_bind(uint32_t n, bool user_mode) {
    const QpHandle h = qp(n);
    uint32_t mrh = 0, mwh = 0;
    mr(n, &mrh);
    MwRec* w = mw(n, &mwh);
    Adapter& a = *nodes_[n].adapter;
    const uint64_t base = a.ObjectBaseVa(mrh), len = a.ObjectLength(mrh);
    const uint64_t va = address(base, len);
    const uint64_t l = length();
    const uint32_t f = flags(NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
    ND_MW_DESCRIPTOR descriptor;
    post(n, h, Verb::Bind, f & NDK_OP_FLAG_SILENT_SUCCESS, [&](uint64_t c) {
      return user_mode ? a.NdBind(h, c, mrh, mwh, va, l, f, &descriptor)
                       : a.NdkBind(h, c, mrh, mwh, va, l, f);
    });
    if (w && user_mode) w->descriptor = descriptor;
  }

  void verb_nd(uint32_t n, bool write) {
    QpRec* r = nullptr;
    const QpHandle h = qp(n, &r);
    uint32_t count = 0;
    bool null_list = false;
    const std::vector<NDK_SGE> sges = sgl(n, &count, &null_list);
    uint32_t mwh = 0;
    MwRec* w = mw(r ? r->peer_node : n ^ 1, &mwh);
    ND_MW_DESCRIPTOR d = w ? w->descriptor : ND_MW_DESCRIPTOR{};
    if (in_.u8() & 1) d.Length = length();
    const uint64_t offset = in_.u8() & 1 ? in_.u64() : in_.u16();
    const uint32_t f = flags();
    Adapter& a = *nodes_[n].adapter;
    const NDK_SGE* list = null_list ? nullptr : sges.data();
    post(n, h, write ? Verb::Write : Verb::Read, f & NDK_OP_FLAG_SILENT_SUCCESS, [&](uint64_t c) {
      return write ? a.NdWrite(h, c, list, count, d, offset, f)
                   : a.NdRead(h, c, list, count, d, offset, f);
    });
  }

  void verb_fast_register(uint32_t n) {
    const QpHandle h = qp(n);
    uint32_t mrh = 0;
    mr(n, &mrh);
    Buffer* b = buffer(n);
    const uint8_t s = in_.u8();
    uint32_t pages = s == 0 ? 4 : s % 40;
    if (s >= 0xf0) pages = in_.u32();
    const uint32_t fbo = in_.u8() & 1 ? in_.u16() : 0;
    // Pages of the input's own buffers, or addresses no page starts at (unaligned, past
    // memory): never pages of the tables or rings, which a consumer has no right to map.
    // Above 4096 pages (past any FRMRPageCount here) the array is shorter than the count:
    // the driver must refuse the count before it reads the array.
    std::vector<uint64_t> array;
    const uint32_t kind = in_.u8();
    for (uint32_t i = 0; i < std::min<uint32_t>(pages, 4096); ++i) {
      uint64_t page = 0;
      if (b && b != &forged_ && !b->pages.empty())
        page = b->phys((i * 4096ull) % b->size) & ~4095ull;
      if (kind == 1) page += 8;
      if (kind == 2) page = (64ull << 20) + i * 4096;
      array.push_back(page);
    }
    const uint64_t l = length();
    const uint64_t va = in_.u8() & 1 ? in_.u64() : 0x10000000ull + fbo;
    const uint32_t f = flags(NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
                             NDK_OP_FLAG_RDMA_READ_SINK);
    Adapter& a = *nodes_[n].adapter;
    const uint64_t* list = (kind == 3 || array.empty()) ? nullptr : array.data();
    post(n, h, Verb::FastRegister, f & NDK_OP_FLAG_SILENT_SUCCESS,
         [&](uint64_t c) { return a.NdkFastRegister(h, c, mrh, pages, list, fbo, l, va, f); });
  }

  void verb_invalidate(uint32_t n) {
    const QpHandle h = qp(n);
    uint32_t object = 0;
    if (in_.u8() & 1) {
      mw(n, &object);
    } else {
      mr(n, &object);
    }
    const uint32_t f = flags();
    Adapter& a = *nodes_[n].adapter;
    post(n, h, Verb::Invalidate, f & NDK_OP_FLAG_SILENT_SUCCESS,
         [&](uint64_t c) { return a.NdkInvalidate(h, c, object, f); });
  }

  // --- the end of an input: close everything, check every request ---
  // Posted requests still owing a completion (silent ones may owe none).
  bool owing() const {
    for (const auto& [context, p] : posted_)
      if (p.completions == 0 && !p.silent) return true;
    return false;
  }

  void finish() {
    // Time for the device to finish what was posted (RNR retries included), else closing
    // the QPs would only flush it.
    const sc_time deadline = sc_core::sc_time_stamp() + sc_time(2, SC_MS);
    for (;;) {
      reap_all();
      const sc_time now = sc_core::sc_time_stamp();
      if (!owing() || now >= deadline) break;
      for (uint32_t n = 0; n < 2; ++n)  // an unarmed CQ sends no interrupt
        for (auto& [h, open] : nodes_[n].cqs)
          if (open) nodes_[n].adapter->NotifyCq(h);
      sc_core::wait(deadline - now, p_.system.node(0).cpu.interrupt_event() |
                                        p_.system.node(1).cpu.interrupt_event());
    }
    for (uint32_t n = 0; n < 2; ++n) {
      for (AsyncRequest& r : nodes_[n].asyncs) {
        if (!r.done) sc_core::wait(sc_time(1, SC_MS), r.completed);
        if (!r.done) finding("an asynchronous registration on node %u did not finish", n);
        if (r.status != STATUS_SUCCESS) finding("asynchronous registration status 0x%x", r.status);
      }
    }
    for (uint32_t n = 0; n < 2; ++n) {
      for (QpRec& q : nodes_[n].qps) {
        if (!q.open) continue;
        const NTSTATUS s = nodes_[n].adapter->CloseQp(q.h);
        if (s != STATUS_SUCCESS) finding("CloseQp of QP %u on node %u: 0x%x", q.h, n, s);
        q.open = false;
      }
    }
    reap_all();
    for (uint32_t n = 0; n < 2; ++n)
      for (auto& [h, open] : nodes_[n].cqs)
        if (open) note_overflow(n, h);
    for (const auto& [context, p] : posted_) {
      if (p.completions == 1 || (p.silent && p.completions == 0)) continue;
      if (overflowed_.count(uint64_t(p.node) << 32 | p.cq)) continue;
      finding("request 0x%llx (verb %d on node %u) never completed", (unsigned long long)context,
              int(p.verb), p.node);
    }
    for (uint32_t n = 0; n < 2; ++n) {
      NodeObjects& o = nodes_[n];
      Adapter& a = *o.adapter;
      for (MwRec& w : o.mws)
        if (w.open) close_ok(a.CloseMw(w.h), "CloseMw", n);
      for (MrRec& m : o.mrs)
        if (m.open) close_ok(a.CloseMr(m.h), "CloseMr", n);
      for (auto& [h, open] : o.cqs)
        if (open) close_ok(a.CloseCq(h), "CloseCq", n);
      for (auto& [h, open] : o.pds)
        if (open) close_ok(a.ClosePd(h), "ClosePd", n);
      for (BufRec& b : o.buffers)
        if (b.open) close_ok(a.FreeBuffer(b.b), "FreeBuffer", n);
      const AdapterUsage u = a.Usage(), s = start_usage_[n];
      if (u.pds || u.cqs || u.qps || u.mrs || u.mws || u.buffers ||
          u.free_memory_bytes != s.free_memory_bytes || u.free_mtt_entries != s.free_mtt_entries)
        finding(
            "node %u leaks: %zu PDs, %zu CQs, %zu QPs, %zu MRs, %zu MWs, %zu buffers, "
            "%lld bytes, %lld MTT entries",
            n, u.pds, u.cqs, u.qps, u.mrs, u.mws, u.buffers,
            (long long)(s.free_memory_bytes - u.free_memory_bytes),
            (long long)(s.free_mtt_entries - u.free_mtt_entries));
    }
  }
  void close_ok(NTSTATUS status, const char* call, uint32_t n) {
    if (status != STATUS_SUCCESS) finding("%s on node %u at the end: 0x%x", call, n, status);
  }

  Platform& p_;
  Input& in_;
  uint64_t& next_context_;
  NodeObjects nodes_[2];
  AdapterUsage start_usage_[2];
  Buffer forged_;  // a buffer description the adapter never allocated
  std::unordered_map<uint64_t, Posted> posted_;
  std::unordered_set<uint64_t> refused_;
  std::unordered_set<uint64_t> overflowed_;  // node << 32 | CQ: entries may be missing
  struct QueueOrder {
    uint64_t last = 0;    // context of the queue's last completion
    bool failed = false;  // an error completion came
  };
  std::unordered_map<uint64_t, QueueOrder> order_;  // QP context * 2 + (receive queue)
};

// The host CPU's thread: one input per `go`.
class Host : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Host);
  Host(sc_core::sc_module_name name, Platform& p) : sc_module(name), p_(p) {
    SC_THREAD(loop);
    set_stack_size(4u << 20);
  }
  sc_core::sc_event go;
  Input* input = nullptr;
  bool done = true;

 private:
  void loop() {
    for (;;) {
      wait(go);
      log_call("input starts");
      Session(p_, *input, next_context_).run();
      log_call("input done");
      done = true;
    }
  }
  Platform& p_;
  uint64_t next_context_ = 1;
};

void report_handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  // sc_start with nothing left to do: not a finding.
  if (std::strstr(report.get_msg_type(), "no activity") ||
      report.get_severity() == sc_core::SC_INFO) {
    sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::SC_DISPLAY);
    return;
  }
  finding("SystemC %s [%s] %s", report.get_severity() == sc_core::SC_WARNING ? "warning" : "error",
          report.get_msg_type(), report.get_msg());
}

struct Fuzzer {
  Fuzzer() {
    sc_core::sc_report_handler::set_handler(report_handler);
    sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  }
  Platform platform;
  Host host{"host", platform};
};

}  // namespace

int sc_main(int, char**) {
  return 0;
}  // libFuzzer's main runs instead

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // RNICSIM_FUZZ_SELFTEST=1: every input is a finding (ctest checks that one fails the run).
  static const bool selftest = std::getenv("RNICSIM_FUZZ_SELFTEST") != nullptr;
  if (selftest) finding("self-test (RNICSIM_FUZZ_SELFTEST is set)");
  static Fuzzer* fuzzer = [] {
    auto* f = new Fuzzer;  // lives as long as the process: SystemC cannot restart
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate: the host thread waits for `go`
    return f;
  }();
  Input input(data, size);
  Host& host = fuzzer->host;
  host.input = &input;
  host.done = false;
  host.go.notify(sc_core::SC_ZERO_TIME);
  const sc_time start = sc_core::sc_time_stamp();
  // Runs until nothing is left to do (the input ran and the device went idle) or the limit.
  sc_core::sc_start(kInputLimit, sc_core::SC_EXIT_ON_STARVATION);
  if (!host.done)
    finding("the input did not finish within %s of simulated time",
            kInputLimit.to_string().c_str());
  if (sc_core::sc_pending_activity()) {
    sc_core::sc_start(sc_time(100, SC_MS), sc_core::SC_EXIT_ON_STARVATION);
    if (sc_core::sc_pending_activity())
      finding("the device was still busy %s after the input (started at %s)",
              (sc_core::sc_time_stamp() - start).to_string().c_str(), start.to_string().c_str());
  }
  if (const uint64_t v = fuzzer->platform.system.protection_violations())
    finding("the protection monitors flagged %llu DMAs", (unsigned long long)v);
  return 0;
}

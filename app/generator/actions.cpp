// SPDX-License-Identifier: Apache-2.0
// The random actions of `rnicsim gen`: mostly well-formed requests on objects the model says are
// usable, with a share of every negative docs/behaviour.md names (stale, out-of-range, wrong-PD,
// missing-right tokens, rebinds, bad fast-register parameters, overruns, missing receives).
// Every choice is tagged with the coverage bins it can hit (gen::Tags), so that --focus and
// --weights can aim it; without them each keeps its base probability.
#include <algorithm>

#include "app/generator/impl.h"
#include "host_api/ndk.h"

namespace rnic::app {

using refm::Mpt;
using refm::MptKind;

using namespace gen;

namespace {

// Completion types whose requests a healthy QP completes; a QP in error flushes them all.
const char* const kTypes[] = {"Read",       "Write",   "Send", "Bind", "FastRegister",
                              "Invalidate", "Receive"};

Tags status_tags(const char* status) {
  Tags t;
  for (const char* type : kTypes) t.push_back(std::string("status:") + type + ":" + status);
  return t;
}

// A QP that can post: every success (a ReceiveAndInvalidate too); one in error: flushes.
const Tags& healthy_tags() {
  static const Tags t = [] {
    Tags s = status_tags("STATUS_SUCCESS");
    s.push_back("status:ReceiveAndInvalidate:");
    return s;
  }();
  return t;
}

const Tags& flushed_tags() {
  static const Tags t = [] {
    Tags s = status_tags("STATUS_CANCELLED");
    s.push_back("rule:R4.error.");
    s.push_back("rule:R5.flush:");
    return s;
  }();
  return t;
}

Tags join(Tags a, const Tags& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The flag bins of posting `verb` with each flag the generator may give it.
Tags flag_bins(const char* verb, std::initializer_list<const char*> flags) {
  Tags t;
  for (const char* f : flags) t.push_back(std::string("flag:") + f + ":" + verb);
  return t;
}

const Tags& read_tags() {
  static const Tags t = join(
      {"status:Read:", "rule:R5.read.", "object:read_sink:", "object:remote_read:",
       "side:requester:read", "side:responder:read", "side:requester:read_local_invalidate",
       "object:invalidate:", "rule:R5.inv.", "rule:R3.remote_resources:", "rule:R5.peer_error:",
       "rule:R2.inline:", "rule:R2.solicit:", "rule:R4.inline."},
      flag_bins("read", {"SILENT_SUCCESS", "READ_FENCE", "DEFER", "INLINE",
                         "RDMA_READ_LOCAL_INVALIDATE"}));
  return t;
}

const Tags& write_tags() {
  static const Tags t =
      join({"status:Write:", "rule:R5.write.", "object:source:", "object:remote_write:",
            "side:requester:write", "side:responder:write", "rule:R3.remote_resources:",
            "rule:R5.peer_error:", "rule:R2.inline:", "rule:R2.solicit:", "rule:R4.inline."},
           flag_bins("write", {"SILENT_SUCCESS", "READ_FENCE", "DEFER", "INLINE"}));
  return t;
}

const Tags& send_tags() {
  static const Tags t = join(
      join({"status:Send:", "status:Receive:", "status:ReceiveAndInvalidate:", "rule:R5.send.",
            "rule:R5.send_inv.", "rule:R5.recv.key:", "rule:R5.write.source:", "object:source:",
            "object:receive_sge:", "object:invalidate:", "rule:R5.inv.", "side:requester:send",
            "side:requester:send_invalidate", "side:responder:receive",
            "side:responder:send_invalidate", "rule:R4.inline.", "rule:R2.inline:",
            "rule:R5.peer_error:", "rule:R4.error.flush_receives:"},
           flag_bins("send", {"SILENT_SUCCESS", "READ_FENCE", "INLINE"})),
      flag_bins("send_invalidate", {"SILENT_SUCCESS", "READ_FENCE", "INLINE"}));
  return t;
}

// A Bind also makes the windows that reads, writes and SendAndInvalidates then reach.
const Tags& bind_tags() {
  static const Tags t = join(
      {"status:Bind:", "rule:R5.bind.", "object:bind:", "side:requester:bind",
       "rule:R4.inline.bind_remote_write:", "rule:R2.solicit:", "object:remote_read:mw:",
       "object:remote_write:mw:", "object:invalidate:mw:", "rule:R5.read.resp.window_qp:",
       "rule:R5.write.resp.window_qp:", "rule:R5.inv.", "rule:R5.dereg.busy:",
       "status:ReceiveAndInvalidate:STATUS_SUCCESS", "rule:R5.send_inv.success:"},
      flag_bins("bind", {"SILENT_SUCCESS", "READ_FENCE", "INLINE", "ALLOW_REMOTE_READ",
                         "ALLOW_REMOTE_WRITE"}));
  return t;
}

const Tags& invalidate_tags() {
  static const Tags t =
      join({"status:Invalidate:", "rule:R5.inv.", "object:invalidate:",
            "side:requester:invalidate", "rule:R5.read.resp.valid:", "rule:R5.write.resp.valid:",
            "object:remote_read:mw:free", "object:remote_read:fast_mr:free",
            "object:remote_write:mw:free", "object:remote_write:fast_mr:free",
            "object:fast_register:fast_mr:free", "object:bind:mw:free"},
           flag_bins("invalidate", {"SILENT_SUCCESS", "READ_FENCE", "INLINE"}));
  return t;
}

// A FastRegister also makes the regions that later requests then reach.
const Tags& fast_register_tags() {
  static const Tags t = join(
      {"status:FastRegister:", "rule:R5.fr.", "rule:R4.inline.fr_remote_access:",
       "rule:R2.remote_write_implies_local:", "object:fast_register:",
       "side:requester:fast_register", "rule:R3.invalid_parameter:",
       "status:ReceiveAndInvalidate:STATUS_SUCCESS", "rule:R5.send_inv.success:", "rule:R5.inv.",
       "object:remote_read:fast_mr:", "object:remote_write:fast_mr:",
       "object:invalidate:fast_mr:", "object:read_sink:fast_mr:", "object:source:fast_mr:",
       "object:receive_sge:fast_mr:"},
      flag_bins("fast_register", {"SILENT_SUCCESS", "READ_FENCE", "INLINE", "ALLOW_REMOTE_READ",
                                  "ALLOW_REMOTE_WRITE"}));
  return t;
}

const Tags& registration_tags() {
  static const Tags t = {"rule:R5.reg.",           "rule:R5.dereg.",
                         "object:read_sink:mr:free", "object:source:mr:free",
                         "object:receive_sge:mr:free", "object:remote_read:mr:free",
                         "object:remote_write:mr:free", "object:invalidate:mr:free",
                         "object:fast_register:mr:free"};
  return t;
}

}  // namespace

std::vector<std::string> Generator::invalidate_targets(const std::string& qp) const {
  const refm::State& st = model_->state();
  const std::string& receiver = st.qps.at(qp).peer;
  const refm::Qp& peer = st.qps.at(receiver);
  // A region a posted receive lands in stays: invalidating it would fail that receive.
  std::vector<uint32_t> in_use;
  for (const refm::Receive& r : peer.receives) {
    for (const refm::Sge& sge : r.sgl) in_use.push_back(sge.token >> 8);
  }
  std::vector<std::string> good;
  for (const auto& [name, m] : st.mpts) {
    if (m.exists && m.node == peer.node && m.kind != MptKind::Mr && usable(m) &&
        m.pd == peer.pd && m.bound_windows == 0 &&
        (m.kind != MptKind::Mw || m.bound_qp == receiver) &&
        std::find(in_use.begin(), in_use.end(), m.index) == in_use.end())
      good.push_back(name);
  }
  return good;
}

Tags Generator::send_tags_for(const std::string& qp, bool posts_receives) const {
  const refm::Qp& peer = model_->state().qps.at(model_->state().qps.at(qp).peer);
  if (!posts_receives && peer.receives.empty())
    return {"rule:R5.send.no_receive:", "status:Send:STATUS_IO_TIMEOUT", "side:requester:send"};
  if (!invalidate_targets(qp).empty()) return send_tags();
  Tags t;
  for (const std::string& tag : send_tags()) {
    if (tag != "status:ReceiveAndInvalidate:" && tag != "rule:R5.send_inv.") t.push_back(tag);
  }
  return t;
}

Tags Generator::bind_tags_for(const std::string& qp_name) const {
  const refm::State& st = model_->state();
  const refm::Qp& qp = st.qps.at(qp_name);
  bool window = false, region = false;
  for (const auto& [name, m] : st.mpts) {
    if (!m.exists || m.undefined || m.node != qp.node || m.pd != qp.pd) continue;
    window = window || (m.kind == MptKind::Mw && !m.valid);
    region = region || (m.kind != MptKind::Mw && usable(m));
  }
  if (window && region) return bind_tags();
  return {"status:Bind:STATUS_ACCESS_VIOLATION", "rule:R5.bind.rebind:", "rule:R5.bind.pd:",
          "rule:R5.bind.mr_valid:", "object:bind:mw:valid", "side:requester:bind"};
}

Tags Generator::fast_register_tags_for(const std::string& qp_name) const {
  const refm::State& st = model_->state();
  const refm::Qp& qp = st.qps.at(qp_name);
  for (const auto& [name, m] : st.mpts) {
    if (m.exists && !m.undefined && m.node == qp.node && m.kind == MptKind::FastMr && !m.valid &&
        m.pd == qp.pd)
      return fast_register_tags();
  }
  return {"status:FastRegister:STATUS_ACCESS_VIOLATION", "rule:R5.fr.free:", "rule:R5.fr.kind:",
          "rule:R5.fr.pd:", "object:fast_register:", "side:requester:fast_register"};
}

void Generator::read_or_write(const std::string& qp, bool write, int depth) {
  const uint64_t max_sge = scenario_.config.rnic.qp.max_sge;
  const char* verb = write ? "write" : "read";
  // After a deferred post no INLINE: its copy could race with a read it cannot wait for.
  const bool inline_data = write && depth < 3 && chance(0.12, {"flag:INLINE:write"});
  const uint64_t total =
      inline_data ? (chance(0.85) ? uniform(0, 64) : uniform(65, 128)) : transfer_length();
  OrderedJson s;
  s["op"] = verb;
  s["qp"] = qp;
  s["sgl"] = write ? sgl_for(qp, total, 0, max_sge, {"status:Write:STATUS_SUCCESS"},
                             {"rule:R5.write.source:", "object:source:"})
                   : sgl_for(qp, total, refm::kLocalWrite | refm::kReadSink, max_sge,
                             {"status:Read:STATUS_SUCCESS"},
                             {"rule:R5.read.sink.", "object:read_sink:"});
  s["remote"] = remote_for(qp, total, write);
  const bool defer_ok = depth < 3 && model_->state().qps.at(qp).receives.empty();
  OrderedJson f = flags({{"SILENT_SUCCESS", 0.15},
                         {"READ_FENCE", 0.1},
                         {"DEFER", defer_ok ? 0.08 : 0.0},
                         {"SEND_AND_SOLICIT_EVENT", 0.02},
                         {write ? "INLINE" : "RDMA_READ_LOCAL_INVALIDATE", write ? 0.0 : 0.05}},
                        verb);
  if (inline_data ||
      (!write && depth < 3 &&
       chance(0.02, {"flag:INLINE:read", "rule:R2.inline:", "status:Read:STATUS_INTERNAL_ERROR"})))
    f.push_back("INLINE");
  // A read that invalidates its sink fails only when its response lands: never deferred.
  if (std::find(f.begin(), f.end(), "RDMA_READ_LOCAL_INVALIDATE") != f.end())
    f.erase(std::remove(f.begin(), f.end(), "DEFER"), f.end());
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  const bool deferred = std::find(f.begin(), f.end(), "DEFER") != f.end();
  emit(s);
  // Behind a failure the batch only flushes (R4.error.flush_later): rarely more of it then.
  if (deferred || (depth < 3 && (healthy(qp) ? chance(0.35) : chance(0.02, flushed_tags()))))
    continue_batch(qp, depth + 1, deferred);
}

// Another post on the same send queue; after a deferred post it must not be deferred, so
// that it rings the doorbell.
void Generator::continue_batch(const std::string& qp, int depth, bool after_defer) {
  if (after_defer) return read_or_write(qp, chance(0.5), 3);
  switch (choose({{40, join(read_tags(), write_tags())},
                  {40, write_tags()},
                  {10, bind_tags_for(qp)},
                  {10, send_tags_for(qp, false)}})) {
    case 0:
      return read_or_write(qp, chance(0.5), depth);
    case 1:
      return read_or_write(qp, true, depth);
    case 2:
      return bind(qp, depth);
    default:
      return send(qp, depth);
  }
}

void Generator::send(const std::string& qp, int depth) {
  const refm::State& st = model_->state();
  const refm::Qp& peer = st.qps.at(st.qps.at(qp).peer);
  uint64_t room = 0;
  if (!peer.receives.empty()) {
    for (const refm::Sge& sge : peer.receives.front().sgl) room += sge.length;
  }
  const bool inline_data = chance(0.1, {"flag:INLINE:send", "flag:INLINE:send_invalidate"});
  const Tags fits = {"status:Send:STATUS_SUCCESS", "status:Receive:STATUS_SUCCESS",
                     "status:ReceiveAndInvalidate:STATUS_SUCCESS", "rule:R5.send.success:",
                     "rule:R5.send_inv.success:"};
  uint64_t total = chance(0.1,
                          {"rule:R5.send.overrun:", "status:Receive:STATUS_DATA_OVERRUN",
                           "status:Send:STATUS_DATA_ERROR"},
                          fits)
                       ? room + uniform(1, 64)
                       : uniform(0, room);
  if (inline_data) total = std::min<uint64_t>(total, chance(0.9) ? 64 : 100);
  OrderedJson s;
  s["op"] = "send";
  s["qp"] = qp;
  s["sgl"] = sgl_for(qp, total, 0, scenario_.config.rnic.qp.max_sge, fits,
                     {"rule:R5.write.source:", "object:source:"});
  // SendAndInvalidate: a window or fast-register MR of the receiver; the targets it could name
  const std::vector<std::string> good = invalidate_targets(qp);
  std::vector<std::string> targets, normal, stale;
  for (const auto& [name, m] : st.mpts) {
    if (m.exists && !m.undefined && m.node == peer.node)
      (m.kind == MptKind::Mr ? normal : targets).push_back(name);
  }
  for (const auto& [name, node] : saved_) {
    if (node == peer.node && !saved_undefined(name)) stale.push_back(name);
  }
  const Tags valid = {"status:ReceiveAndInvalidate:", "rule:R5.send_inv.success:",
                      "object:invalidate:fast_mr:valid", "object:invalidate:mw:valid"};
  const Tags refused = {"rule:R5.inv.", "rule:R5.send_inv.invalid:",
                        "status:Receive:STATUS_ACCESS_VIOLATION", "status:Send:STATUS_DATA_ERROR",
                        "object:invalidate:"};
  // Without a valid target only the refusals are in reach.
  const Tags invalidating = join(
      join({"side:requester:send_invalidate", "side:responder:send_invalidate",
            "flag:SILENT_SUCCESS:send_invalidate", "flag:READ_FENCE:send_invalidate",
            "flag:INLINE:send_invalidate"},
           refused),
      good.empty() ? Tags{} : valid);
  const bool and_invalidate = chance(0.15, invalidating);
  const char* verb = and_invalidate ? "send_invalidate" : "send";
  // DEFER as for reads and writes: never after a deferred post, none with receives posted here;
  // none on a SendAndInvalidate (a barrier: it ends its batch), and only with a receive waiting
  // (one that times out would let the post that rings overtake it).
  const bool defer_ok = depth < 3 && st.qps.at(qp).receives.empty() && !and_invalidate &&
                        !peer.receives.empty();
  OrderedJson f = flags({{"SILENT_SUCCESS", 0.1},
                         {"SEND_AND_SOLICIT_EVENT", 0.2},
                         {"READ_FENCE", 0.05},
                         {"DEFER", defer_ok ? 0.05 : 0.0}},
                        verb);
  if (inline_data) f.push_back("INLINE");
  const bool deferred = std::find(f.begin(), f.end(), "DEFER") != f.end();
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  if (and_invalidate) {
    switch (choose({{good.empty() ? 0.0 : 56.0, valid},
                    {targets.empty() ? 0.0 : 24.0, refused},
                    {normal.empty() ? 0.0 : 3.0,
                     {"rule:R5.inv.normal_mr:", "object:invalidate:mr:"}},
                    {stale.empty() ? 0.0 : 9.0, {"rule:R5.inv.token:", "rule:R5.inv.valid:"}},
                    {8, {"rule:R5.inv.normal_mr:", "object:invalidate:none:unused"}},
                    {good.empty() ? 0.0 : 4.0, {"rule:R5.inv.token:"}}})) {
      case 0:
        s["invalidate"] = ref(pick(good), "token");
        break;
      case 1:
        s["invalidate"] = ref(pick(targets), "token");
        break;
      case 2:
        s["invalidate"] = ref(pick(normal), "token");
        break;
      case 3:
        s["invalidate"] = "$" + pick(stale);
        break;
      case 4:
        s["invalidate"] = kInvalidToken;
        break;
      default:  // a valid target, another tag: the token check refuses it
        s["invalidate"] = ref(pick(good), "token") + (chance(0.5) ? "+1" : "-1");
    }
  }
  emit(s);
  if (deferred || (depth < 3 && (healthy(qp) ? chance(0.3) : chance(0.02, flushed_tags()))))
    continue_batch(qp, depth + 1, deferred);
}

void Generator::send_batch(const std::string& qp) {
  const std::string peer = model_->state().qps.at(qp).peer;
  // Each receive lets one more send of the batch land (with what it can hit then).
  const Tags lands = {"status:Receive:", "status:ReceiveAndInvalidate:", "rule:R5.send.success:",
                      "rule:R5.send_inv.success:", "object:receive_sge:"};
  const size_t receives =
      choose({{15, {"rule:R5.send.no_receive:", "status:Send:STATUS_IO_TIMEOUT"}},
              {28, {"status:Receive:", "object:receive_sge:"}},
              {28, lands},
              {29, lands}});
  for (uint64_t i = 0; i < receives; ++i) {
    OrderedJson r;
    r["op"] = "receive";
    r["qp"] = peer;
    r["sgl"] = sgl_for(
        peer, uniform(16, 2048), refm::kLocalWrite, scenario_.config.rnic.qp.max_sge,
        {"status:Receive:STATUS_SUCCESS", "status:ReceiveAndInvalidate:STATUS_SUCCESS"},
        {"rule:R5.recv.key:", "object:receive_sge:", "status:Receive:STATUS_ACCESS_VIOLATION"});
    r["context"] = next_context();
    emit(r);
  }
  send(qp, 0);
  // More sends behind one that failed would only flush: rarely then; and one with no receive
  // left fails (R5.send.no_receive).
  const Tags more = send_tags_for(qp, false);
  for (size_t i = choose({{1, {}}, {1, more}, {1, more}}); i > 0; --i) {
    if (!healthy(qp) && !chance(0.05, flushed_tags())) break;
    if (model_->state().qps.at(peer).receives.empty() &&
        !chance(0.5, {"rule:R5.send.no_receive:", "status:Send:STATUS_IO_TIMEOUT"},
                {"status:Send:STATUS_SUCCESS", "status:ReceiveAndInvalidate:"}))
      break;
    send(qp, 3);
  }
}

void Generator::bind(const std::string& qp_name, int depth) {
  const refm::State& st = model_->state();
  const refm::Qp& qp = st.qps.at(qp_name);
  const std::vector<std::string> mws = windows(qp.node), mrs = regions(qp.node);
  if (mws.empty() || mrs.empty()) return;
  std::vector<std::string> free_mws, good_mrs;
  for (const std::string& w : mws) {
    if (!st.mpts.at(w).valid && st.mpts.at(w).pd == qp.pd) free_mws.push_back(w);
  }
  for (const std::string& r : mrs) {
    if (usable(st.mpts.at(r)) && st.mpts.at(r).pd == qp.pd) good_mrs.push_back(r);
  }
  const Tags bound = {"status:Bind:STATUS_SUCCESS", "rule:R5.bind.token_on_return:",
                      "object:bind:mw:free", "object:remote_read:mw:valid",
                      "object:remote_write:mw:valid", "object:invalidate:mw:valid",
                      "status:ReceiveAndInvalidate:STATUS_SUCCESS", "rule:R5.send_inv.success:"};
  const std::string& mw = !free_mws.empty() && chance(0.85, bound,
                                                      {"rule:R5.bind.rebind:", "rule:R5.bind.pd:",
                                                       "object:bind:mw:valid"})
                              ? pick(free_mws)
                              : pick(mws);
  const std::string& mr = !good_mrs.empty() && chance(0.85, bound,
                                                      {"rule:R5.bind.mr_valid:",
                                                       "rule:R5.bind.pd:"})
                              ? pick(good_mrs)
                              : pick(mrs);
  const Mpt& region = st.mpts.at(mr);
  const uint64_t size = region.valid ? region.length : 4096;
  const uint64_t length = uniform(1, std::min<uint64_t>(size, 8192));
  OrderedJson s;
  s["op"] = "bind";
  s["qp"] = qp_name;
  s["mr"] = mr;
  s["mw"] = mw;
  switch (choose({{3, {"rule:R5.bind.va_zero:"}},
                  {7, {"rule:R5.bind.range:"}},
                  {90, bound}})) {
    case 0:
      s["va"] = 0;  // R5.bind.va_zero: VA != 0
      break;
    case 1:
      s["offset"] = size - length + uniform(1, 64);  // R5.bind.range
      break;
    default:
      s["offset"] = uniform(0, size - length);
  }
  s["length"] = length;
  OrderedJson f = flags({{"ALLOW_REMOTE_READ", 0.7, bound},
                         {"ALLOW_REMOTE_WRITE", 0.5, bound},
                         {"SILENT_SUCCESS", 0.1},
                         {"READ_FENCE", 0.05},
                         {"SEND_AND_SOLICIT_EVENT", 0.02},
                         {"INLINE", 0.01}},
                        "bind");
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  if (chance(0.08, {"object:remote_read:mw:", "object:remote_write:mw:",
                    "rule:R3.remote_resources:"}))
    s["zero_based"] = true;
  emit(s);
  if (chance(0.3, {"rule:R5.read.resp.tag:", "rule:R5.write.stale:", "rule:R5.inv.token:"}))
    save_token(mw);
  if (depth < 3 && (healthy(qp_name) ? chance(0.3) : chance(0.02, flushed_tags())))
    continue_batch(qp_name, depth + 1, false);
}

void Generator::invalidate(const std::string& given) {
  const refm::State& st = model_->state();
  std::string qp_name = given;
  const refm::Qp& qp = st.qps.at(qp_name);
  const size_t kind_choice = choose({{45, {"object:invalidate:mw:", "rule:R5.inv.pd_qp:"}},
                                     {40, {"object:invalidate:fast_mr:",
                                           "rule:R5.inv.bound_windows:"}},
                                     {15, {"object:invalidate:mr:", "rule:R5.inv.normal_mr:"}}});
  std::vector<std::string> all, valid;
  for (const auto& [name, m] : st.mpts) {
    if (!m.exists || m.undefined || m.node != qp.node) continue;
    const bool kind = kind_choice == 0   ? m.kind == MptKind::Mw
                      : kind_choice == 1 ? m.kind == MptKind::FastMr
                                         : m.kind == MptKind::Mr;
    if (!kind) continue;
    all.push_back(name);
    if (usable(m)) valid.push_back(name);
  }
  const Tags ok = {"status:Invalidate:STATUS_SUCCESS", "rule:R5.inv.success:"};
  const Tags refused = {"rule:R5.inv.valid:", "status:Invalidate:STATUS_ACCESS_VIOLATION"};
  if (all.empty() || (valid.empty() && chance(0.7))) return;
  const std::string target = !valid.empty() && chance(0.8, ok, refused) ? pick(valid) : pick(all);
  // A window is invalidated through the QP it is bound to (when that QP can post).
  const Mpt& m = st.mpts.at(target);
  if (m.kind == MptKind::Mw && !m.bound_qp.empty() &&
      chance(0.85, ok, {"rule:R5.inv.pd_qp:", "status:Invalidate:STATUS_ACCESS_VIOLATION"})) {
    const refm::Qp& bound = st.qps.at(m.bound_qp);
    if (bound.exists && bound.connected) qp_name = m.bound_qp;
  }
  OrderedJson s;
  s["op"] = "invalidate";
  s["qp"] = qp_name;
  s["target"] = target;
  OrderedJson f = flags({{"SILENT_SUCCESS", 0.1}, {"READ_FENCE", 0.05}, {"INLINE", 0.01}},
                        "invalidate");
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  emit(s);
}

void Generator::fast_register(const std::string& qp_name) {
  const refm::State& st = model_->state();
  const refm::Qp& qp = st.qps.at(qp_name);
  std::vector<std::string> fast, free_fast, normal;
  for (const std::string& name : regions(qp.node)) {
    const Mpt& m = st.mpts.at(name);
    (m.kind == MptKind::FastMr ? fast : normal).push_back(name);
    if (m.kind == MptKind::FastMr && !m.valid && m.pd == qp.pd) free_fast.push_back(name);
  }
  const std::vector<std::string> bufs = buffers(qp.node);
  if (fast.empty() || bufs.empty()) return;
  const Tags registered = {"status:FastRegister:STATUS_SUCCESS", "rule:R5.fr.success:",
                           "object:fast_register:fast_mr:free",
                           "status:ReceiveAndInvalidate:STATUS_SUCCESS",
                           "rule:R5.send_inv.success:", "object:remote_read:fast_mr:valid",
                           "object:remote_write:fast_mr:valid", "object:invalidate:fast_mr:valid",
                           "object:read_sink:fast_mr:valid", "object:source:fast_mr:valid",
                           "object:receive_sge:fast_mr:valid"};
  const size_t which =
      choose({{!normal.empty() ? 5.0 : 0.0, {"rule:R5.fr.kind:", "object:fast_register:mr:"}},
              {!free_fast.empty() ? 76.0 : 0.0, registered},
              {19, {"rule:R5.fr.free:", "rule:R5.fr.pd:", "object:fast_register:fast_mr:valid"}}});
  const std::string& mr = which == 0 ? pick(normal) : which == 1 ? pick(free_fast) : pick(fast);
  const std::string& buffer = pick(bufs);
  const uint64_t size = st.buffers.at(buffer).size;
  const uint64_t capacity = std::max<uint64_t>(1, st.mpts.at(mr).fr_capacity);
  uint64_t offset = chance(0.6) ? uniform(0, (size - 1) / 4096) * 4096 : uniform(0, size - 1);
  const uint64_t fbo = offset % 4096;
  const uint64_t fits = std::min<uint64_t>(size - offset, capacity * 4096 - fbo);
  const uint64_t length = chance(0.1, {"rule:R5.fr.length:", "rule:R5.fr.capacity:"}, registered)
                              ? size - offset + uniform(1, 8192)
                              : uniform(1, fits);
  OrderedJson s;
  s["op"] = "fast_register";
  s["qp"] = qp_name;
  s["mr"] = mr;
  s["buffer"] = buffer;
  s["offset"] = offset;
  s["length"] = length;
  OrderedJson f = flags({{"ALLOW_LOCAL_WRITE", 0.6},
                         {"ALLOW_REMOTE_READ", 0.5},
                         {"ALLOW_REMOTE_WRITE", 0.4},
                         {"RDMA_READ_SINK", 0.5},
                         {"SILENT_SUCCESS", 0.1},
                         {"READ_FENCE", 0.05},
                         {"INLINE", 0.01}},
                        "fast_register");
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  const uint64_t pages = (std::min(size, offset + length) - offset / 4096 * 4096 + 4095) / 4096;
  switch (choose({{7, {"rule:R5.fr.fbo:"}},
                  {pages > 1 ? 5.0 : 0.0, {"rule:R5.fr.length:"}},
                  {5, {"rule:R5.fr.capacity:", "rule:R3.invalid_parameter:"}},
                  {6, {"rule:R5.fr.va_zero:", "rule:R5.fr.fbo:"}},
                  {3, {"rule:R5.fr.page_align:"}},
                  {74, registered}})) {
    case 0:
      s["base_va"] = ref_plus(buffer, "va", offset + uniform(1, 4095));  // FBO mismatch
      break;
    case 1:
      s["page_count"] = pages - 1;  // too few pages for the length
      break;
    case 2:
      s["page_count"] = pages + uniform(1, 3);  // repeats the last page; maybe above capacity
      break;
    case 3:
      s["base_va"] = 0;  // valid exactly when FBO is 0 (R5.fr.va_zero)
      break;
    case 4: {
      OrderedJson page;
      page["buffer"] = buffer;
      page["index"] = 0;
      page["offset"] = 8;  // a misaligned page address
      s["pages"] = OrderedJson::array({page});
      break;
    }
    default:
      break;
  }
  emit(s);
  if (chance(0.3, {"rule:R5.read.resp.tag:", "rule:R5.write.stale:", "rule:R5.inv.token:"}))
    save_token(mr);
}

void Generator::register_or_deregister(uint32_t node, const std::string& given) {
  const refm::State& st = model_->state();
  std::string mr = given;
  if (mr.empty()) {
    std::vector<std::string> normal;
    for (const std::string& name : regions(node)) {
      if (st.mpts.at(name).kind == MptKind::Mr || chance(0.05)) normal.push_back(name);
    }
    if (normal.empty()) return;
    mr = pick(normal);
  }
  const Mpt& m = st.mpts.at(mr);
  if (m.registered && chance(0.8, {"rule:R5.dereg.", "object:read_sink:mr:free",
                                   "object:remote_read:mr:free", "object:remote_write:mr:free"})) {
    OrderedJson d;
    d["op"] = "deregister_mr";
    d["mr"] = mr;
    emit(d);
    return;
  }
  const std::vector<std::string> bufs = buffers(m.node);
  const std::string& buffer = pick(bufs);
  const uint64_t size = st.buffers.at(buffer).size;
  OrderedJson s;
  s["op"] = "register_mr";
  s["mr"] = mr;
  s["buffer"] = buffer;
  if (chance(0.7)) {
    const uint64_t offset = uniform(0, size / 2);
    s["offset"] = offset;
    const uint64_t r = uniform(0, 99);
    s["length"] = r < 4 ? 0 : r < 8 ? size - offset + uniform(1, 100) : uniform(1, size - offset);
  }
  s["flags"] = flags({{"ALLOW_LOCAL_WRITE", 0.6},
                      {"ALLOW_REMOTE_READ", 0.6},
                      {"ALLOW_REMOTE_WRITE", 0.5},
                      {"RDMA_READ_SINK", 0.6}},
                     "register");
  if (chance(0.04, {"rule:R5.reg.zero_based:"})) s["zero_based"] = true;
  const bool async = chance(0.1);
  if (async) s["async"] = true;
  const uint32_t status = emit(s);
  if (async && status == ndk::STATUS_PENDING) {
    OrderedJson w;
    w["op"] = "wait_async";
    w["mr"] = mr;
    emit(w);
  }
}

void Generator::save_token(const std::string& object) {
  // R4.cancelled.undefined: nothing to depend on
  if (model_->state().mpts.at(object).undefined) return;
  const std::string name = "tok" + std::to_string(saved_.size());
  OrderedJson s;
  s["op"] = "save";
  s["name"] = name;
  s["value"] = ref(object, "token");
  emit(s);
  saved_.emplace_back(name, model_->state().mpts.at(object).node);
  saved_of_[name] = object;
}

void Generator::fill_memory() {
  const uint32_t node = uint32_t(uniform(0, 1));
  const std::vector<std::string> bufs = buffers(node);
  const std::string& buffer = pick(bufs);
  const uint64_t size = model_->state().buffers.at(buffer).size;
  const uint64_t length = uniform(1, std::min<uint64_t>(256, size));
  OrderedJson s;
  s["op"] = "fill_memory";
  s["buffer"] = buffer;
  s["offset"] = uniform(0, size - length);
  s["length"] = length;
  s["fill"] = chance(0.5) ? "0xA5" : "incrementing";
  emit(s);
}

void Generator::action() {
  std::vector<std::string> live = qps();
  std::vector<std::string> good;
  for (const std::string& q : live) {
    if (healthy(q)) good.push_back(q);
  }
  // Posts on QPs in error only complete CANCELLED (R4.error.posted_later): with none healthy,
  // or few, a fresh pair. (A QP is healthy with its peer: they come in pairs.)
  if (live.empty() ||
      (pairs_ < kMaxPairs &&
       (good.empty() || chance(0.03) || (good.size() * 4 < live.size() && chance(0.1))))) {
    create_pair(second_pd_ && chance(0.2));
    return;
  }
  const std::string& qp =
      !good.empty() && chance(0.97, healthy_tags(), flushed_tags()) ? pick(good) : pick(live);
  const uint32_t node = model_->state().qps.at(qp).node;
  static const Tags tokens = {"rule:R5.read.resp.tag:", "rule:R5.write.stale:",
                              "rule:R5.inv.token:"};
  static const Tags flush = join(flushed_tags(), {"rule:R5.flush:"});
  static const Tags objects = {"rule:R5.frinit.limit:", "object:"};
  switch (choose({{22, read_tags()},
                  {18, write_tags()},
                  {10, send_tags_for(qp, true)},
                  {12, bind_tags_for(qp)},
                  {7, invalidate_tags()},
                  {9, fast_register_tags_for(qp)},
                  {6, registration_tags()},
                  {4, tokens},
                  {2, {}},
                  {2, flush},
                  {4, objects},
                  {4, {}}})) {
    case 0:
      return read_or_write(qp, false, 0);
    case 1:
      return read_or_write(qp, true, 0);
    case 2:
      return send_batch(qp);
    case 3:
      return bind(qp, 0);
    case 4:
      return invalidate(qp);
    case 5:
      return fast_register(qp);
    case 6:
      return register_or_deregister(node, "");
    case 7: {
      std::vector<std::string> objects = regions(uint32_t(uniform(0, 1)));
      if (!objects.empty()) save_token(pick(objects));
      return;
    }
    case 8:
      return fill_memory();
    case 9: {
      OrderedJson f;
      f["op"] = "flush";
      f["qp"] = qp;
      emit(f);
      return;
    }
    case 10:
      return chance(0.5) ? create_window(node) : create_region(node, chance(0.4));
    default: {
      OrderedJson w;
      w["op"] = "wait";
      w["ns"] = uniform(100, 5000);
      emit(w);
    }
  }
}

}  // namespace rnic::app

// SPDX-License-Identifier: Apache-2.0
// The generator's actions on protection objects: Bind, Invalidate, FastRegister, registering
// and deregistering regions, and saving a token for later requests; each mostly well-formed,
// with a share of the negatives docs/behaviour.md names (rebinds, stale or wrong-PD tokens, bad
// fast-register parameters). The data path is in actions.cpp.
#include <algorithm>

#include "app/generator/action_tags.h"
#include "app/generator/impl.h"
#include "host_api/ndk.h"

namespace rnic::app {

using refm::Mpt;
using refm::MptKind;

using namespace gen;

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

}  // namespace rnic::app

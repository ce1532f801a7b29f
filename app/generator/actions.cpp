// SPDX-License-Identifier: Apache-2.0
// The random actions of `rnicsim gen`: mostly well-formed requests on objects the model says are
// usable, with a share of every negative docs/behaviour.md names (stale, out-of-range, wrong-PD,
// missing-right tokens, rebinds, bad fast-register parameters, overruns, missing receives).
#include <algorithm>

#include "app/generator/impl.h"
#include "host_api/ndk.h"

namespace rnic::app {

using refm::Mpt;
using refm::MptKind;

using namespace gen;

void Generator::read_or_write(const std::string& qp, bool write, int depth) {
  const uint64_t max_sge = scenario_.config.rnic.qp.max_sge;
  // After a deferred post no INLINE: its copy could race with a read it cannot wait for.
  const bool inline_data = write && depth < 3 && chance(0.12);
  const uint64_t total =
      inline_data ? (chance(0.85) ? uniform(0, 64) : uniform(65, 128)) : transfer_length();
  OrderedJson s;
  s["op"] = write ? "write" : "read";
  s["qp"] = qp;
  s["sgl"] = sgl_for(qp, total, write ? 0 : refm::kLocalWrite | refm::kReadSink, max_sge);
  s["remote"] = remote_for(qp, total, write ? refm::kRemoteWrite : refm::kRemoteRead);
  OrderedJson f =
      flags({{"SILENT_SUCCESS", 0.15},
             {"READ_FENCE", 0.1},
             {"DEFER", depth < 3 && model_->state().qps.at(qp).receives.empty() ? 0.08 : 0.0},
             {"SEND_AND_SOLICIT_EVENT", 0.02},
             {write ? "INLINE" : "RDMA_READ_LOCAL_INVALIDATE", write ? 0.0 : 0.05}});
  if (inline_data || (!write && depth < 3 && chance(0.02))) f.push_back("INLINE");
  // A read that invalidates its sink fails only when its response lands: never deferred.
  if (std::find(f.begin(), f.end(), "RDMA_READ_LOCAL_INVALIDATE") != f.end())
    f.erase(std::remove(f.begin(), f.end(), "DEFER"), f.end());
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  const bool deferred = std::find(f.begin(), f.end(), "DEFER") != f.end();
  emit(s);
  if (deferred || (depth < 3 && chance(healthy(qp) ? 0.35 : 0.1)))
    continue_batch(qp, depth + 1, deferred);
}

// Another post on the same send queue; after a deferred post it must not be deferred, so
// that it rings the doorbell.
void Generator::continue_batch(const std::string& qp, int depth, bool after_defer) {
  const uint64_t r = uniform(0, 99);
  if (r < 40 || after_defer) return read_or_write(qp, r % 2 == 1, after_defer ? 3 : depth);
  if (r < 80) return read_or_write(qp, true, depth);
  if (r < 90) return bind(qp, depth);
  send(qp, depth);
}

void Generator::send(const std::string& qp, int depth) {
  const refm::State& st = model_->state();
  const refm::Qp& peer = st.qps.at(st.qps.at(qp).peer);
  uint64_t room = 0;
  if (!peer.receives.empty()) {
    for (const refm::Sge& sge : peer.receives.front().sgl) room += sge.length;
  }
  const bool inline_data = chance(0.1);
  uint64_t total = chance(0.1) ? room + uniform(1, 64) : uniform(0, room);
  if (inline_data) total = std::min<uint64_t>(total, chance(0.9) ? 64 : 100);
  OrderedJson s;
  s["op"] = "send";
  s["qp"] = qp;
  s["sgl"] = sgl_for(qp, total, 0, scenario_.config.rnic.qp.max_sge);
  OrderedJson f =
      flags({{"SILENT_SUCCESS", 0.1}, {"SEND_AND_SOLICIT_EVENT", 0.2}, {"READ_FENCE", 0.05}});
  if (inline_data) f.push_back("INLINE");
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  if (chance(0.15)) {  // SendAndInvalidate: a window or fast-register MR of the receiver
    const uint64_t r = uniform(0, 99);
    std::vector<std::string> targets, good;
    for (const auto& [name, m] : st.mpts) {
      if (!m.exists || m.undefined || m.node != peer.node || (m.kind == MptKind::Mr && r < 90))
        continue;
      targets.push_back(name);
      if (usable(m) && m.pd == peer.pd &&
          (m.kind != MptKind::Mw || m.bound_qp == st.qps.at(qp).peer))
        good.push_back(name);
    }
    if (!good.empty() && chance(0.7)) targets = good;
    std::vector<std::string> stale;
    for (const auto& [name, node] : saved_) {
      if (node == peer.node && !saved_undefined(name)) stale.push_back(name);
    }
    if (r < 80 && !targets.empty()) {
      s["invalidate"] = ref(pick(targets), "token");
    } else if (r < 92 && !stale.empty()) {
      s["invalidate"] = "$" + pick(stale);
    } else {
      s["invalidate"] = kInvalidToken;
    }
  }
  emit(s);
  if (depth < 3 && chance(healthy(qp) ? 0.3 : 0.1)) continue_batch(qp, depth + 1, false);
}

void Generator::send_batch(const std::string& qp) {
  const std::string peer = model_->state().qps.at(qp).peer;
  const uint64_t receives = chance(0.15) ? 0 : uniform(1, 3);
  for (uint64_t i = 0; i < receives; ++i) {
    OrderedJson r;
    r["op"] = "receive";
    r["qp"] = peer;
    r["sgl"] =
        sgl_for(peer, uniform(16, 2048), refm::kLocalWrite, scenario_.config.rnic.qp.max_sge);
    r["context"] = next_context();
    emit(r);
  }
  send(qp, 0);
  for (uint64_t i = uniform(0, 2); i > 0; --i) send(qp, 3);
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
  const std::string& mw = !free_mws.empty() && chance(0.85) ? pick(free_mws) : pick(mws);
  const std::string& mr = !good_mrs.empty() && chance(0.85) ? pick(good_mrs) : pick(mrs);
  const Mpt& region = st.mpts.at(mr);
  const uint64_t size = region.valid ? region.length : 4096;
  const uint64_t length = uniform(1, std::min<uint64_t>(size, 8192));
  OrderedJson s;
  s["op"] = "bind";
  s["qp"] = qp_name;
  s["mr"] = mr;
  s["mw"] = mw;
  if (chance(0.03)) {
    s["va"] = 0;  // R5.bind.va_zero: VA != 0
  } else {
    s["offset"] = chance(0.07) ? size - length + uniform(1, 64) : uniform(0, size - length);
  }
  s["length"] = length;
  OrderedJson f = flags({{"ALLOW_REMOTE_READ", 0.7},
                         {"ALLOW_REMOTE_WRITE", 0.5},
                         {"SILENT_SUCCESS", 0.1},
                         {"READ_FENCE", 0.05},
                         {"SEND_AND_SOLICIT_EVENT", 0.02}});
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  if (chance(0.08)) s["zero_based"] = true;
  emit(s);
  if (chance(0.3)) save_token(mw);
  if (depth < 3 && chance(healthy(qp_name) ? 0.3 : 0.1)) continue_batch(qp_name, depth + 1, false);
}

void Generator::invalidate(const std::string& given) {
  const refm::State& st = model_->state();
  std::string qp_name = given;
  const refm::Qp& qp = st.qps.at(qp_name);
  const uint64_t r = uniform(0, 99);
  std::vector<std::string> all, valid;
  for (const auto& [name, m] : st.mpts) {
    if (!m.exists || m.undefined || m.node != qp.node) continue;
    const bool kind = r < 45   ? m.kind == MptKind::Mw
                      : r < 85 ? m.kind == MptKind::FastMr
                               : m.kind == MptKind::Mr;
    if (!kind) continue;
    all.push_back(name);
    if (usable(m)) valid.push_back(name);
  }
  if (all.empty() || (valid.empty() && chance(0.7))) return;
  const std::string target = !valid.empty() && chance(0.8) ? pick(valid) : pick(all);
  // A window is invalidated through the QP it is bound to (when that QP can post).
  const Mpt& m = st.mpts.at(target);
  if (m.kind == MptKind::Mw && !m.bound_qp.empty() && chance(0.85)) {
    const refm::Qp& bound = st.qps.at(m.bound_qp);
    if (bound.exists && bound.connected) qp_name = m.bound_qp;
  }
  OrderedJson s;
  s["op"] = "invalidate";
  s["qp"] = qp_name;
  s["target"] = target;
  if (chance(0.1)) s["flags"] = OrderedJson::array({"SILENT_SUCCESS"});
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
  const std::string& mr = !normal.empty() && chance(0.05)     ? pick(normal)
                          : !free_fast.empty() && chance(0.8) ? pick(free_fast)
                                                              : pick(fast);
  const std::string& buffer = pick(bufs);
  const uint64_t size = st.buffers.at(buffer).size;
  const uint64_t capacity = std::max<uint64_t>(1, st.mpts.at(mr).fr_capacity);
  uint64_t offset = chance(0.6) ? uniform(0, (size - 1) / 4096) * 4096 : uniform(0, size - 1);
  const uint64_t fbo = offset % 4096;
  const uint64_t fits = std::min<uint64_t>(size - offset, capacity * 4096 - fbo);
  const uint64_t length = chance(0.1) ? size - offset + uniform(1, 8192) : uniform(1, fits);
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
                         {"SILENT_SUCCESS", 0.1}});
  if (!f.empty()) s["flags"] = f;
  s["context"] = next_context();
  const uint64_t pages = (std::min(size, offset + length) - offset / 4096 * 4096 + 4095) / 4096;
  const uint64_t r = uniform(0, 99);
  if (r < 7) {
    s["base_va"] = ref_plus(buffer, "va", offset + uniform(1, 4095));  // FBO mismatch
  } else if (r < 12 && pages > 1) {
    s["page_count"] = pages - 1;  // too few pages for the length
  } else if (r < 17) {
    s["page_count"] = pages + uniform(1, 3);  // repeats the last page; maybe above capacity
  } else if (r < 23) {
    s["base_va"] = 0;  // valid exactly when FBO is 0 (R5.fr.va_zero)
  } else if (r < 26) {
    OrderedJson page;
    page["buffer"] = buffer;
    page["index"] = 0;
    page["offset"] = 8;  // a misaligned page address
    s["pages"] = OrderedJson::array({page});
  }
  emit(s);
  if (chance(0.3)) save_token(mr);
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
  if (m.registered && chance(0.8)) {
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
                      {"RDMA_READ_SINK", 0.6}});
  if (chance(0.04)) s["zero_based"] = true;
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
  size_t in_error = 0;
  for (const std::string& q : live) in_error += model_->state().qps.at(q).error ? 1 : 0;
  if (live.empty() ||
      (pairs_ < 12 && (chance(0.03) || (in_error * 2 > live.size() && chance(0.5))))) {
    create_pair(second_pd_ && chance(0.2));
    return;
  }
  std::vector<std::string> good;
  for (const std::string& q : live) {
    if (healthy(q)) good.push_back(q);
  }
  const std::string& qp = !good.empty() && chance(0.85) ? pick(good) : pick(live);
  const uint32_t node = model_->state().qps.at(qp).node;
  const uint64_t r = uniform(0, 99);
  if (r < 22) return read_or_write(qp, false, 0);
  if (r < 40) return read_or_write(qp, true, 0);
  if (r < 50) return send_batch(qp);
  if (r < 62) return bind(qp, 0);
  if (r < 69) return invalidate(qp);
  if (r < 78) return fast_register(qp);
  if (r < 84) return register_or_deregister(node, "");
  if (r < 88) {
    std::vector<std::string> objects = regions(uint32_t(uniform(0, 1)));
    if (!objects.empty()) save_token(pick(objects));
    return;
  }
  if (r < 90) return fill_memory();
  if (r < 92) {
    OrderedJson f;
    f["op"] = "flush";
    f["qp"] = qp;
    emit(f);
    return;
  }
  if (r < 96) return chance(0.5) ? create_window(node) : create_region(node, chance(0.4));
  OrderedJson w;
  w["op"] = "wait";
  w["ns"] = uniform(100, 5000);
  emit(w);
}

}  // namespace rnic::app

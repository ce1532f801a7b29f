// SPDX-License-Identifier: Apache-2.0
// What `rnicsim gen` chooses from: views of the reference model's state, and SGLs and remote
// targets that are mostly usable, with a share of each negative.
#include <algorithm>
#include <map>

#include "app/generator/impl.h"
#include "host_api/ndk.h"

namespace rnic::app {

using refm::Mpt;
using refm::MptKind;
using namespace gen;

namespace {

Tags join_tags(Tags a, const Tags& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

bool Generator::healthy(const std::string& qp) const {
  const refm::Qp& q = model_->state().qps.at(qp);
  return !q.error && !model_->state().qps.at(q.peer).error;
}

std::vector<std::string> Generator::qps() const {
  std::vector<std::string> out;
  for (const auto& [name, qp] : model_->state().qps) {
    if (qp.exists && qp.connected) out.push_back(name);
  }
  return out;
}

std::vector<std::string> Generator::regions(uint32_t node) const {
  std::vector<std::string> out;
  for (const auto& [name, m] : model_->state().mpts) {
    // Undefined objects (R4.cancelled.undefined: after a CANCELLED Bind/FastRegister/Invalidate)
    // are left.
    if (m.exists && !m.undefined && m.node == node && m.kind != MptKind::Mw) out.push_back(name);
  }
  return out;
}

std::vector<std::string> Generator::windows(uint32_t node) const {
  std::vector<std::string> out;
  for (const auto& [name, m] : model_->state().mpts) {
    if (m.exists && !m.undefined && m.node == node && m.kind == MptKind::Mw) out.push_back(name);
  }
  return out;
}

std::vector<std::string> Generator::buffers(uint32_t node) const {
  std::vector<std::string> out;
  for (const auto& [name, b] : model_->state().buffers) {
    if (b.node == node) out.push_back(name);
  }
  return out;
}

OrderedJson Generator::flags(const std::vector<FlagChoice>& choices, const char* verb) {
  static const std::map<std::string, std::string> types = {
      {"read", "Read"}, {"write", "Write"}, {"send", "Send"}, {"send_invalidate", "Send"},
      {"bind", "Bind"}, {"fast_register", "FastRegister"}, {"invalidate", "Invalidate"}};
  const auto type = types.find(verb);
  OrderedJson out = OrderedJson::array();
  for (const auto& [name, p, also] : choices) {
    const std::string flag = name;
    Tags tags = {"flag:" + flag + ":" + verb};
    tags.insert(tags.end(), also.begin(), also.end());
    // A flag the verb does not define makes the WQE malformed (R2.solicit, R2.inline).
    const bool sends = type != types.end() && type->second == "Send";
    const bool payload = sends || std::string(verb) == "write";
    if (type != types.end() && ((flag == "SEND_AND_SOLICIT_EVENT" && !sends) ||
                                (flag == "INLINE" && !payload))) {
      tags.push_back(flag == "INLINE" ? "rule:R2.inline:" : "rule:R2.solicit:");
      tags.push_back("status:" + type->second + ":STATUS_INTERNAL_ERROR");
    }
    if (flag == "RDMA_READ_LOCAL_INVALIDATE") {
      tags.insert(tags.end(),
                  {"side:requester:read_local_invalidate", "object:invalidate:", "rule:R5.inv."});
    }
    if (chance(p, tags)) out.push_back(name);
  }
  return out;
}

uint64_t Generator::transfer_length() {
  const uint64_t r = uniform(0, 99);
  if (r < 6) return 0;
  if (r < 56) return uniform(1, 256);
  if (r < 90) return uniform(257, 4096);
  return uniform(4097, 12000);
}

OrderedJson Generator::sgl_for(const std::string& qp_name, uint64_t total, uint32_t rights,
                               size_t max_sges, const Tags& ok, const Tags& bad) {
  const refm::Qp& qp = model_->state().qps.at(qp_name);
  const uint32_t max_sge = std::min<uint32_t>(scenario_.config.rnic.qp.max_sge, 4);
  size_t n = total == 0 ? uniform(0, 1) : uniform(1, std::min<size_t>(max_sges, 3));
  // above the adapter's limit: INVALID_PARAMETER
  if (chance(0.03, {"rule:R4.inline.sge_count:"}, ok)) n = max_sge + 1;
  std::vector<uint64_t> parts(n, 0);
  for (uint64_t left = total, i = 0; i < n; ++i) {
    parts[i] = i + 1 == n ? left : uniform(0, left);
    left -= parts[i];
  }
  const std::vector<std::string> all = regions(qp.node);
  OrderedJson sgl = OrderedJson::array();
  for (uint64_t part : parts) {
    std::vector<std::string> good;
    for (const std::string& name : all) {
      const Mpt& m = model_->state().mpts.at(name);
      if (usable(m) && m.pd == qp.pd && (m.rights & rights) == rights && m.length >= part)
        good.push_back(name);
    }
    if (all.empty()) break;
    // Rarely a token that names no object (the literal form): the list's first check refuses.
    Tags none;
    for (const std::string& tag : bad) {
      if (tag.rfind("object:", 0) == 0) none.push_back(tag + "none:unused");
    }
    std::vector<std::string> fits;
    for (const std::string& b : buffers(qp.node)) {
      if (model_->state().buffers.at(b).size >= part) fits.push_back(b);
    }
    if (part > 0 && !fits.empty() && chance(0.01, none, ok)) {
      const std::string& b = pick(fits);
      OrderedJson sge;
      sge["token"] = kInvalidToken;
      sge["address"] = ref_plus(b, "va", uniform(0, model_->state().buffers.at(b).size - part));
      sge["length"] = part;
      sgl.push_back(sge);
      continue;
    }
    const std::string& name = !good.empty() && chance(0.95, ok, bad) ? pick(good) : pick(all);
    const Mpt& m = model_->state().mpts.at(name);
    uint64_t offset = m.valid && m.length >= part ? uniform(0, m.length - part) : uniform(0, 4096);
    if (chance(0.02, bad, ok) && m.valid && m.length >= part)
      offset = m.length - part + uniform(1, 64);
    OrderedJson sge;
    sge["mr"] = name;
    sge["offset"] = offset;
    sge["length"] = part;
    sgl.push_back(sge);
  }
  return sgl;
}

OrderedJson Generator::remote_for(const std::string& qp_name, uint64_t total, bool write) {
  const uint32_t right = write ? refm::kRemoteWrite : refm::kRemoteRead;
  const refm::State& st = model_->state();
  const refm::Qp& qp = st.qps.at(qp_name);
  const refm::Qp& peer = st.qps.at(qp.peer);
  const uint32_t pnode = peer.node;
  std::vector<std::string> all = regions(pnode), good;
  for (const std::string& w : windows(pnode)) all.push_back(w);
  std::vector<std::string> wrong_qp;
  for (const std::string& name : all) {
    const Mpt& m = st.mpts.at(name);
    if (!usable(m) || m.pd != peer.pd || !(m.rights & right) || m.length < total) continue;
    (m.kind != MptKind::Mw || m.bound_qp == qp.peer ? good : wrong_qp).push_back(name);
  }
  const std::vector<std::string> bufs = buffers(pnode);
  auto address = [&]() {
    const std::string& b = pick(bufs);
    const uint64_t size = st.buffers.at(b).size;
    return ref_plus(b, "va", size > total ? uniform(0, size - total) : 0);
  };
  OrderedJson remote;
  std::vector<std::string> stale;
  for (const auto& [name, node] : saved_) {
    if (node == pnode && !saved_undefined(name)) stale.push_back(name);
  }
  std::vector<std::string> descriptors;
  for (const std::string& w : windows(pnode)) {
    if (st.mpts.at(w).zero_based) descriptors.push_back(w);
  }
  const std::string list = write ? "object:remote_write:" : "object:remote_read:";
  const Tags ok = {write ? "status:Write:STATUS_SUCCESS" : "status:Read:STATUS_SUCCESS",
                   write ? "rule:R5.write.success:" : "side:responder:read", list + "mr:valid",
                   list + "fast_mr:valid", list + "mw:valid"};
  const Tags refused = {write ? "rule:R5.write." : "rule:R5.read.resp.", list + "mr:free",
                        list + "fast_mr:free", list + "mw:free"};
  const Tags stale_tag = {write ? "rule:R5.write.stale:" : "rule:R5.read.resp.tag:"};
  const Tags index = {write ? "rule:R5.write.resp.index:" : "rule:R5.read.resp.index:",
                      list + "none:unused"};
  switch (choose({{stale.empty() ? 0.0 : 5.0, stale_tag},  // a token saved earlier
                  {2, refused},                              // a token of the requester's node
                  {all.empty() ? 92.0 : 1.0, index},         // no object: every one undefined
                  {descriptors.empty() ? 0.0 : 4.0,
                   {"rule:R3.remote_resources:", list + "mw:"}},
                  {good.empty() ? 0.0 : 4.0, stale_tag},  // the right object, another tag
                  {wrong_qp.empty() ? 0.0 : 4.0,
                   {write ? "rule:R5.write.resp.window_qp:" : "rule:R5.read.resp.window_qp:"}},
                  {all.empty() ? 0.0 : 80.0, join_tags(ok, refused)}})) {
    case 0:  // stale by now, or not
      remote["token"] = "$" + pick(stale);
      remote["address"] = address();
      break;
    case 1: {
      const std::vector<std::string> mine = regions(qp.node);
      remote["token"] =
          mine.empty() ? OrderedJson(kInvalidToken) : OrderedJson(ref(pick(mine), "token"));
      remote["address"] = address();
      break;
    }
    case 2:
      remote["token"] = kInvalidToken;
      remote["address"] = address();
      break;
    case 3:  // through a user-mode window descriptor
      remote["descriptor"] = pick(descriptors);
      remote["offset"] = uniform(0, 8192);
      break;
    case 4: {  // the right object and range, another tag: stale
      const std::string& name = pick(good);
      const Mpt& m = st.mpts.at(name);
      remote["token"] = ref(name, "token") + (chance(0.5) ? "+1" : "-1");
      remote["address"] =
          ref_plus(name, "va", m.length > total ? uniform(0, m.length - total) : 0);
      break;
    }
    case 5: {  // a window of the responder's PD, another QP's
      const std::string& name = pick(wrong_qp);
      const Mpt& m = st.mpts.at(name);
      remote["target"] = name;
      remote["offset"] = m.length > total ? uniform(0, m.length - total) : 0;
      break;
    }
    default: {
      const std::string& name = !good.empty() && chance(0.9, ok, refused) ? pick(good) : pick(all);
      const Mpt& m = st.mpts.at(name);
      uint64_t offset =
          m.valid && m.length >= total ? uniform(0, m.length - total) : uniform(0, 4096);
      if (chance(0.04, {write ? "rule:R5.write.bounds:" : "rule:R5.read.resp.bounds:"}, ok) &&
          m.valid && m.length >= total)
        offset = m.length - total + uniform(1, 100);
      remote["target"] = name;
      remote["offset"] = offset;
    }
  }
  return remote;
}

}  // namespace rnic::app

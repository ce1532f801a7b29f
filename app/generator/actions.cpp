// SPDX-License-Identifier: Apache-2.0
// The random actions of `rnicsim gen`: mostly well-formed requests on objects the model says are
// usable, with a share of every negative docs/behaviour.md names (stale, out-of-range, wrong-PD,
// missing-right tokens, rebinds, bad fast-register parameters, overruns, missing receives).
// Every choice is tagged with the coverage bins it can hit (action_tags.h), so that --focus and
// --weights can aim it; without them each keeps its base probability. This file: the data path
// (reads, writes, sends, receives) and the choice of the next action; the protection objects'
// verbs (bind, invalidate, fast-register, registration) are in object_actions.cpp.
#include <algorithm>

#include "app/generator/action_tags.h"
#include "app/generator/impl.h"
#include "host_api/ndk.h"

namespace rnic::app {

using refm::Mpt;
using refm::MptKind;

using namespace gen;

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

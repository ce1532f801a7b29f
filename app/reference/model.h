// SPDX-License-Identifier: Apache-2.0
// The reference model: an untimed, functional reading of docs/behaviour.md in plain C++ (no
// SystemC). It executes a parsed Scenario step by step, every request to its end at once,
// and says what must come out: the inline status of every call, the completions that arrive
// on every CQ, the bytes of every buffer. `rnicsim gen` writes these predictions into the
// scenarios it generates and `rnicsim run` checks the timed model against them (differential
// testing, docs/user-guide.md).
//
// Untimed means the predictions hold only for scenarios whose outcome cannot depend on
// timing; race() says when a step breaks that (the rules: reference_race.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/reference/state.h"
#include "app/scenario/scenario.h"

namespace rnic::app {

// The model cannot predict this step (an op it does not cover, a random fill, a value that
// does not fit): the message says why.
class RefUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RefOutcome {
  std::optional<uint32_t> status;        // inline status of a call; none for other ops
  std::vector<refm::Completion> polled;  // poll: the completions it took, in order
};

struct RefOptions {
  // Deliberately wrong rules, to show that the differential test can fail (tests only):
  // "stale-token" (the responder ignores the tag), "silent-success" (a silent success still
  // completes), "window-qp" (a window works through any QP of its PD). Empty: none.
  std::string broken_rule;
};

// The names of the broken rules RefOptions accepts.
std::vector<std::string> ref_broken_rules();

class ReferenceModel {
 public:
  explicit ReferenceModel(const Scenario& scenario, RefOptions options = {});

  // Why `step` could come out differently depending on timing, or "" when it cannot. Call it
  // before execute(). The rules: consecutive posts on one QP's send queue form a batch; any
  // other step (a post on another QP, a receive, a control call) waits until every completion
  // is polled, and a request that completes silently has been followed by a poll; a post
  // after a barrier (FastRegister, Invalidate, an invalidating read or send, a predicted
  // IO_TIMEOUT, an error on a QP with posted receives) waits too; a post that touches bytes
  // an earlier read of its batch touches needs READ_FENCE.
  std::string race(const Step& step) const;

  // Executes one step; RefUnsupported when the model cannot predict it. A poll takes up to
  // `count` of the completions pending on its CQ (the caller compares the number); with
  // `poll_all` it takes every completion pending, whatever its count.
  RefOutcome execute(const Step& step, bool poll_all = false);

  // True when nothing is in flight: every completion polled, no silent request unfinished,
  // no deferred request waiting for its doorbell.
  bool settled() const;

  const refm::State& state() const { return state_; }
  // Bytes of a buffer (its whole size), as they are now.
  std::vector<uint8_t> memory(const std::string& buffer) const;
  // Value of a literal or $reference now (as the runner resolves it).
  uint64_t resolve(const Value& value) const;

 private:
  struct Descriptor {
    uint64_t length = 0;
    uint32_t token = 0;
  };

  // control ops (reference_model.cpp)
  uint32_t alloc(const Step& s);
  uint32_t create_qp(const Step& s);
  uint32_t connect(const Step& s);
  uint32_t create_mr(const Step& s);
  uint32_t register_mr(const Step& s);
  uint32_t deregister_mr(const Step& s);
  uint32_t create_mpt(const Step& s, refm::MptKind kind);
  RefOutcome poll(const Step& s, bool poll_all);
  void fill_memory(const Step& s);
  uint32_t resolve32(const Value& v) const;
  static uint64_t adjust(const Value& v, uint64_t base);  // refused when it would wrap

  // posting (post.cpp): the inline checks of R4.inline.* and what the consumer passes
  uint32_t begin_post(const std::string& qp) const;
  uint32_t build_request(const Step& s, refm::Request* out) const;
  uint32_t post(const Step& s);
  uint32_t post_receive(const Step& s);
  uint32_t flush(const Step& s);
  void ring(const std::string& qp);
  std::vector<refm::Sge> build_sgl(const Step& s) const;
  void resolve_remote(const Step& s, uint64_t* address, uint32_t* token) const;
  std::string race_of_post(const Step& s) const;

  // the device (device.cpp): the checks of R5.*, one request to its end
  void execute_request(const std::string& qp, const refm::Request& r);
  refm::Verdict exec_bind(const std::string& qp, const refm::Request& r);
  refm::Verdict exec_fast_register(const std::string& qp, const refm::Request& r);
  refm::Verdict exec_rdma(const std::string& qp, const refm::Request& r);
  refm::Verdict exec_send(const std::string& qp, const refm::Request& r);
  refm::Verdict invalidate(const std::string& qp, uint32_t token, bool by_object = false);
  // A local SGE under the checks of `list` (a read's sink, a source, a receive SGE).
  refm::Verdict check_local(const refm::Qp& qp, const refm::Sge& sge, uint32_t rights,
                            CheckList list) const;
  refm::Verdict check_remote(const std::string& responder, uint32_t token, uint64_t addr,
                             uint64_t length, uint32_t right) const;
  void enter_error(const std::string& qp);
  void complete(const std::string& qp, refm::Completion c);
  const refm::Mpt* object_of(uint32_t node, uint32_t token) const;
  // Bytes [va, +length) of a region or window, as (buffer, offset, length) pieces.
  std::vector<refm::Footprint> pieces(const refm::Mpt& m, uint64_t va, uint64_t length) const;
  std::vector<uint8_t> gather(const std::vector<refm::Footprint>& from) const;
  void scatter(const std::vector<refm::Footprint>& to, const std::vector<uint8_t>& data);
  std::vector<refm::Footprint> local_pieces(const refm::Qp& qp,
                                            const std::vector<refm::Sge>& sgl) const;
  std::vector<refm::Footprint> footprint(const std::string& qp, const refm::Request& r) const;

  RefOptions options_;
  refm::State state_;
  // adapter limits (NDK_ADAPTER_INFO, from the scenario's config)
  uint32_t max_sge_ = 0;
  uint32_t max_fr_pages_ = 0;
  uint64_t max_transfer_ = 0;
  uint32_t max_ord_ = 0, max_ird_ = 0;
  uint32_t adapter_flags_ = 0;
  uint32_t max_mpt_ = 0;
  std::map<std::string, Descriptor> descriptors_;  // MWs bound through the user-mode Bind
};

}  // namespace rnic::app

// SPDX-License-Identifier: Apache-2.0
// Internals of `rnicsim gen` (generator.cpp: the frame and the timing rules; generator_actions.cpp:
// the random actions).
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "app/generator/generator.h"
#include "app/scenario/parse.h"

namespace rnic::app {

namespace gen {

constexpr uint32_t kInvalidToken = 0x7fff00;  // an index no scenario creates
constexpr size_t kMaxPairs = 24;              // QP pairs a file creates at most

// The coverage bins a choice can hit (app/coverage/coverage.h): bin IDs, or prefixes of them
// ending in ':' or '.' ("status:Read:", "rule:R5.bind."). --focus and --weights weigh them.
using Tags = std::vector<std::string>;

// VALID, and the token the consumer holds is current (a failed FastRegister or Bind leaves
// the consumer with a tag the object never got).
inline bool usable(const refm::Mpt& m) {
  return m.exists && !m.undefined && m.valid &&
         (m.kind == refm::MptKind::Mr || m.consumer_tag == m.tag);
}

// "$name.field" and "$name.field+n": references the runner resolves when the step runs.
inline std::string ref(const std::string& name, const std::string& field) {
  return "$" + name + "." + field;
}
inline std::string ref_plus(const std::string& name, const std::string& field, uint64_t n) {
  return ref(name, field) + "+" + std::to_string(n);
}

}  // namespace gen

class Generator {
 public:
  explicit Generator(const GenOptions& options);
  OrderedJson run();

 private:
  // --- the frame (generator.cpp) ---
  // Appends one step: parses it, settles first when the reference model says it could race
  // (or adds READ_FENCE to a post that only races with a read of its batch), runs it in the
  // model and writes the model's inline status into it. Returns the model's status.
  uint32_t emit(OrderedJson step);
  void settle();  // polls every pending completion; a count-0 poll after a silent request
  Step parse(const OrderedJson& step);
  void setup();
  void finish();
  void create_pair(bool second_pd);
  void create_buffer(uint32_t node);
  void create_region(uint32_t node, bool fast);
  void create_window(uint32_t node);

  // --- random choices ---
  uint64_t uniform(uint64_t lo, uint64_t hi);  // [lo, hi]
  bool chance(double p);
  // Aimed choices (--focus, --weights): each option's weight is multiplied by the weight of
  // every pattern one of its tags matches. One draw each, whatever the weights.
  double weight(const gen::Tags& tags) const;
  bool chance(double p, const gen::Tags& yes, const gen::Tags& no = {});
  size_t choose(const std::vector<std::pair<double, gen::Tags>>& options);
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[uniform(0, v.size() - 1)];
  }
  std::string node_name(uint32_t node) const { return node ? "B" : "A"; }
  uint64_t next_context() { return ++context_; }

  // --- actions (generator_actions.cpp) ---
  void action();
  void read_or_write(const std::string& qp, bool write, int depth);
  void continue_batch(const std::string& qp, int depth, bool after_defer);
  void send(const std::string& qp, int depth);
  void send_batch(const std::string& qp);
  void bind(const std::string& qp, int depth);
  void invalidate(const std::string& qp);
  void fast_register(const std::string& qp);
  void register_or_deregister(uint32_t node, const std::string& mr);
  void save_token(const std::string& object);
  void fill_memory();
  // The bins an action on `qp` can still hit, as the model's state stands (a Bind with no free
  // window can only be refused, a send with no receive posted only time out).
  gen::Tags send_tags_for(const std::string& qp, bool posts_receives) const;
  gen::Tags bind_tags_for(const std::string& qp) const;
  gen::Tags fast_register_tags_for(const std::string& qp) const;
  // Objects of the receiver a SendAndInvalidate on `qp` can invalidate: VALID, its PD, a
  // window bound to the receiving QP.
  std::vector<std::string> invalidate_targets(const std::string& qp) const;

  // views of the model's state for choosing
  std::vector<std::string> qps() const;                   // existing, connected QPs
  bool healthy(const std::string& qp) const;              // neither it nor its peer in error
  std::vector<std::string> regions(uint32_t node) const;  // MRs (normal and fast) of a node
  std::vector<std::string> windows(uint32_t node) const;
  std::vector<std::string> buffers(uint32_t node) const;
  // An SGL of `total` bytes on `qp`'s node, mostly inside regions `qp` may use with `rights`;
  // `good` and `bad` tag the usable and the refused choices.
  OrderedJson sgl_for(const std::string& qp, uint64_t total, uint32_t rights, size_t max_sges,
                      const gen::Tags& good, const gen::Tags& bad);
  // The remote side of a read or write of `total` bytes from `qp`.
  OrderedJson remote_for(const std::string& qp, uint64_t total, bool write);
  uint64_t transfer_length();
  // Each flag with its probability, for a post of `verb` (coverage's verb name); `also`: what
  // else giving the flag can hit.
  struct FlagChoice {
    const char* name;
    double p;
    gen::Tags also = {};
  };
  OrderedJson flags(const std::vector<FlagChoice>& choices, const char* verb);

  GenOptions options_;
  std::mt19937_64 rng_;
  OrderedJson root_;
  Scenario scenario_;  // config and nodes, for the model
  ParseState parse_;
  std::unique_ptr<ReferenceModel> model_;
  OrderedJson steps_ = OrderedJson::array();
  uint64_t context_ = 0;
  size_t pairs_ = 0;  // names handed out
  size_t mrs_[2] = {0, 0}, frs_[2] = {0, 0}, mws_[2] = {0, 0}, bufs_[2] = {0, 0};
  std::vector<std::pair<std::string, uint32_t>> saved_;  // saved tokens and their node
  std::map<std::string, std::string> saved_of_;           // saved token -> its object
  // A saved token whose object is undefined now (R4.cancelled.undefined): its outcome is too.
  bool saved_undefined(const std::string& name) const {
    return model_->state().mpts.at(saved_of_.at(name)).undefined;
  }
  bool second_pd_ = false;
};

}  // namespace rnic::app

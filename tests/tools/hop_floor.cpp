// SPDX-License-Identifier: Apache-2.0
// Test equipment, not the product: the cost floor of a read's shape. A token crosses CROSSINGS
// sockets per trip and waits in TIMED stages, and does nothing else: no rule, no table, no
// byte moved. What the SystemC kernel and the sockets charge for that is the least a read of
// that shape can cost, whatever its units do. `scripts/bench --floor` runs it under callgrind
// at two token counts (start-up cancels) with the shape of a 64 B read (docs/development.md).
//
// A token crosses a socket as a unit's message does: a typed call of a unit protocol
// (tlm/protocol.h) from an rnic::ProtocolInitiatorSocket to an rnic::ProtocolTargetSocket,
// whose forwarder calls the receiver with the caller's index; the receiver annotates its
// delay. With --bare a crossing costs the least TLM-2.0 allows: every hop is its own
// tlm_fw_transport_if behind a plain tlm::tlm_target_socket (no dispatch object in between),
// the payload the token started on travels the whole trip (no payload per send, no response
// status), and the receiver finds the token at the payload's data pointer. A
// timed stage holds a token as the switch holds a packet: into a queue, an event notified for
// its due time, an SC_METHOD that sends on what is due; it serves one token per nanosecond, so
// tokens are due one by one. WINDOW tokens are in flight (a stream's outstanding reads); a
// token back at the source starts the next one.
//
//   usage: rnicsim_hop_floor TOKENS CROSSINGS TIMED [WINDOW] [--bare]
//   CROSSINGS >= 1 socket calls per trip, 0 <= TIMED < CROSSINGS, WINDOW >= 1 (default 16).
//   Exit 0 with a summary line; 2 on a bad argument; 1 if a token took another path.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "tlm/protocol.h"
#include "tlm/timing.h"

namespace {

struct Token {
  uint64_t crossings = 0;           // sockets crossed on this trip
  tlm::tlm_generic_payload* gp{};  // Bare: the payload it travels on (its data pointer: here)
};

// The protocol a token crosses as units' messages do.
struct TokenProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = TokenProtocol;
    virtual void pass(Token& token, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, rnic::ForwardTo<Target> {
    using rnic::ForwardTo<Target>::ForwardTo;
    void pass(Token& m, sc_core::sc_time& d) override { this->target->pass(this->caller, m, d); }
  };
};

// The two ways a unit meets a socket. AsUnits: the project's typed protocol sockets, the
// receiver called by the socket's forwarder. Bare: plain TLM-2.0 sockets bound to the module
// itself, which is the fw (and bw) interface, and the payload passed on as it came.
struct AsUnits {};
struct Bare {
  template <typename>
  using In = tlm::tlm_target_socket<>;
  template <typename>
  using Out = tlm::tlm_initiator_socket<>;
};

// The interfaces a Bare module implements; the calls nobody makes fail loudly.
class BareInterfaces : public tlm::tlm_fw_transport_if<>, public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                     sc_core::sc_time&) override {
    SC_REPORT_FATAL("rnicsim/hop_floor", "nb_transport_fw");
    return tlm::TLM_COMPLETED;
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                     sc_core::sc_time&) override {
    SC_REPORT_FATAL("rnicsim/hop_floor", "nb_transport_bw");
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

// What a module of either kind does at its sockets: the module's pass() is called for every
// token arriving at `in`, send() passes the token on at `out`.
template <typename Kind, typename Module>
class Ends;

template <typename Module>
class Ends<AsUnits, Module> {
 public:
  rnic::ProtocolTargetSocket<TokenProtocol, Module> in;
  rnic::ProtocolInitiatorSocket<TokenProtocol> out{"out_isock"};
  explicit Ends(Module* module) : in("in_tsock", module) {}
  void send(Token& token, sc_core::sc_time& delay) { out->pass(token, delay); }
};

template <typename Module>
class Ends<Bare, Module> : public BareInterfaces {
 public:
  Bare::In<Module> in{"in_tsock"};
  Bare::Out<Module> out{"out_isock"};
  explicit Ends(Module* module) : module_(module) {
    in.bind(*this);
    out.bind(*this);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
    module_->pass(0, *reinterpret_cast<Token*>(gp.get_data_ptr()), delay);
  }
  void send(Token& token, sc_core::sc_time& delay) { out->b_transport(*token.gp, delay); }

 private:
  Module* module_;
};

// One unit on the path: counts the crossing, annotates a latency, and sends the token on at
// once (untimed) or when the latency has passed (timed).
template <typename Kind>
class Hop : public sc_core::sc_module {
 public:
  Ends<Kind, Hop> ends{this};

  Hop(sc_core::sc_module_name name, bool timed) : sc_module(name), timed_(timed) {
    if (timed_) {
      SC_HAS_PROCESS(Hop);
      SC_METHOD(release);
      sensitive << due_event_;
      dont_initialize();
    }
  }

  void pass(int, Token& token, sc_core::sc_time& delay) {
    ++token.crossings;
    delay += latency_;
    if (!timed_) {
      ends.send(token, delay);
      return;
    }
    // One token per initiation interval, as a pipeline stage serves them: each token is due at
    // its own time, so each costs the kernel an activation (tokens due together would share
    // one, which a read stream's tokens seldom do). Due times stay in order.
    const sc_core::sc_time now = rnic::sim_time(*this);
    last_due_ = std::max(now + delay, last_due_ + interval_);
    held_.push_back({last_due_, &token});
    due_event_.notify(held_.front().due - now);
  }

 private:
  struct Held {
    sc_core::sc_time due;
    Token* token;
  };

  void release() {
    const sc_core::sc_time now = rnic::sim_time(*this);
    while (!held_.empty() && held_.front().due <= now) {
      const Held held = held_.front();
      held_.pop_front();
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      ends.send(*held.token, delay);
    }
    if (!held_.empty()) due_event_.notify(held_.front().due - now);
  }

  const sc_core::sc_time latency_{10, sc_core::SC_NS};
  const sc_core::sc_time interval_{1, sc_core::SC_NS};
  sc_core::sc_time last_due_;
  bool timed_;
  std::deque<Held> held_;
  sc_core::sc_event due_event_;
};

// Starts WINDOW tokens, then one more for each that comes back, until TOKENS have made the trip.
template <typename Kind>
class Source : public sc_core::sc_module {
 public:
  Ends<Kind, Source> ends{this};

  Source(sc_core::sc_module_name name, uint64_t tokens, uint64_t crossings, bool timed,
         uint32_t window)
      : sc_module(name), tokens_(tokens), crossings_(crossings), timed_(timed), slots_(window),
        payloads_(window) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      payloads_[i].set_data_ptr(reinterpret_cast<unsigned char*>(&slots_[i]));
      slots_[i].gp = &payloads_[i];
    }
    // A method run once at the start, not a thread: nothing here waits, and a thread that
    // ends leaves LeakSanitizer the bounds of its freed coroutine stack to scan at exit (the
    // sanitizer pass then dies with "Tracer caught signal 11").
    SC_HAS_PROCESS(Source);
    SC_METHOD(run);
  }
  uint64_t done() const { return done_; }
  uint64_t wrong_paths() const { return wrong_paths_; }

  void pass(int, Token& token, sc_core::sc_time&) {
    ++done_;
    if (token.crossings + 1 != crossings_) ++wrong_paths_;  // + 1: this crossing
    // Timed, the return comes from a stage's process: the next trip runs from here to the first
    // timed stage.
    if (timed_ && started_ < tokens_) start(size_t(&token - slots_.data()));
  }

 private:
  void run() {
    if (!timed_) {
      // Untimed, a whole trip is one call: trips go one after another from here (started
      // from the return instead, each would nest inside the last).
      while (started_ < tokens_) start(0);
      return;
    }
    // The first WINDOW go out now; each return starts one more (receive).
    for (size_t i = 0; i < slots_.size() && started_ < tokens_; ++i) start(i);
  }
  void start(size_t slot) {
    ++started_;
    slots_[slot].crossings = 0;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    ends.send(slots_[slot], delay);
  }

  uint64_t tokens_;
  uint64_t crossings_;
  bool timed_;
  std::vector<Token> slots_;
  // One per token in flight, pointing at its Token: a Bare token travels the whole trip on it.
  std::vector<tlm::tlm_generic_payload> payloads_;
  uint64_t started_ = 0;
  uint64_t done_ = 0;
  uint64_t wrong_paths_ = 0;
};

// Builds CROSSINGS - 1 hops and the way back to the source (the timed ones spread evenly), runs
// them, prints the summary line. Returns the exit status.
template <typename Kind>
int run_floor(uint64_t tokens, uint64_t crossings, uint64_t timed, uint64_t window,
              const char* sends) {
  Source<Kind> source("source", tokens, crossings, timed > 0, uint32_t(timed ? window : 1));
  std::vector<std::unique_ptr<Hop<Kind>>> hops;
  const uint64_t n = crossings - 1;
  for (uint64_t i = 0; i < n; ++i) {
    const bool is_timed = timed && (i * timed) / n != ((i + 1) * timed) / n;
    hops.push_back(std::make_unique<Hop<Kind>>(("hop_" + std::to_string(i)).c_str(), is_timed));
  }
  if (hops.empty()) {
    source.ends.out.bind(source.ends.in);
  } else {
    source.ends.out.bind(hops.front()->ends.in);
    for (size_t i = 0; i + 1 < hops.size(); ++i) hops[i]->ends.out.bind(hops[i + 1]->ends.in);
    hops.back()->ends.out.bind(source.ends.in);
  }
  sc_core::sc_start();
  std::cout << "tokens " << source.done() << " crossings " << crossings << " timed " << timed
            << " window " << (timed ? window : 1) << " sends " << sends << " deltas "
            << sc_core::sc_delta_count() << " sim_ns "
            << uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5) << "\n";
  if (source.done() != tokens || source.wrong_paths() != 0) {
    std::cerr << "rnicsim_hop_floor: " << source.done() << " of " << tokens << " tokens back, "
              << source.wrong_paths() << " by another path\n";
    return 1;
  }
  return 0;
}

bool parse_count(const char* text, uint64_t max, uint64_t* out) {
  const std::string s(text);
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *out = std::stoull(s);
  return *out <= max;
}

int usage(const std::string& why) {
  std::cerr << "rnicsim_hop_floor: " << why
            << "\nusage: rnicsim_hop_floor TOKENS CROSSINGS TIMED [WINDOW] [--bare]"
               " (1 <= CROSSINGS <= 1000, 0 <= TIMED < CROSSINGS, 1 <= WINDOW <= 4096)\n";
  return 2;
}

}  // namespace

int sc_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool bare = false;
  for (auto it = args.begin(); it != args.end();) {
    if (*it == "--bare") {
      bare = true;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  if (args.size() < 3 || args.size() > 4) return usage("three or four numbers expected");
  uint64_t tokens = 0, crossings = 0, timed = 0, window = 16;
  if (!parse_count(args[0].c_str(), 1000000000000ull, &tokens) || tokens == 0)
    return usage("TOKENS must be a positive integer");
  if (!parse_count(args[1].c_str(), 1000, &crossings) || crossings == 0)
    return usage("CROSSINGS must be 1 to 1000");
  if (!parse_count(args[2].c_str(), 1000, &timed) || timed >= crossings)
    return usage("TIMED must be below CROSSINGS");
  if (args.size() == 4 && (!parse_count(args[3].c_str(), 4096, &window) || window == 0))
    return usage("WINDOW must be 1 to 4096");

  return bare ? run_floor<Bare>(tokens, crossings, timed, window, "bare")
              : run_floor<AsUnits>(tokens, crossings, timed, window, "as-units");
}

// SPDX-License-Identifier: Apache-2.0
// Test equipment, not the product: the cost floor of a read's shape. A token crosses CROSSINGS
// sockets per trip and waits in TIMED stages, and does nothing else: no rule, no table, no
// byte moved. What the SystemC kernel and the sockets charge for that is the least a read of
// that shape can cost, whatever its units do. `scripts/bench --floor` runs it under callgrind
// at two token counts (start-up cancels) with the shape of a 64 B read (docs/development.md).
//
// A token crosses a socket as a unit's message does: rnic::send_message on an
// rnic::InitiatorSocket (its message payload) to an rnic::TargetSocket, the receiver finding it
// with message_of and annotating its delay. With --bare every sender calls b_transport itself
// on a payload of its own, with no check and no response status (the least a TLM-2.0
// b_transport can cost). A timed stage holds a token as the switch holds a packet: into a
// queue, an event notified for its due time, an SC_METHOD that sends on what is due; it serves
// one token per nanosecond, so tokens are due one by one. WINDOW tokens are in flight (a
// stream's outstanding reads); a token back at the source starts the next one.
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

#include "tlm/extensions.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/timing.h"

namespace {

struct Token {
  uint64_t crossings = 0;  // sockets crossed on this trip
};

// Sends a token on as units do (send_message), or bare: b_transport on a payload of its own.
class Sender {
 public:
  explicit Sender(bool bare) : bare_(bare) {}
  template <typename Socket>
  void send(Socket& socket, Token& token, sc_core::sc_time& delay) {
    if (!bare_ || !own_.gp || busy_) {  // bare, a nested send while its payload is out too
      rnic::send_message(pool_, socket, token, delay);
      return;
    }
    busy_ = true;
    own_.ext->message = &token;
    socket->b_transport(*own_.gp, delay);
    own_.ext->message = nullptr;
    busy_ = false;
  }
  void keep_one() {
    if (bare_) own_ = pool_.acquire_message<Token>();
  }

 private:
  bool bare_;
  bool busy_ = false;
  rnic::PayloadPool pool_;
  rnic::PayloadPool::Message<Token> own_{nullptr, nullptr};
};

// One unit on the path: counts the crossing, annotates a latency, and sends the token on at
// once (untimed) or when the latency has passed (timed).
class Hop : public sc_core::sc_module {
 public:
  rnic::TargetSocket<Hop> in_tsock;
  rnic::InitiatorSocket<Hop> out_isock;

  Hop(sc_core::sc_module_name name, bool timed, bool bare)
      : sc_module(name), in_tsock("in_tsock"), out_isock("out_isock"), timed_(timed),
        sender_(bare) {
    in_tsock.register_b_transport(this, &Hop::b_transport);
    sender_.keep_one();
    if (timed_) {
      SC_HAS_PROCESS(Hop);
      SC_METHOD(release);
      sensitive << due_event_;
      dont_initialize();
    }
  }

 private:
  struct Held {
    sc_core::sc_time due;
    Token* token;
  };

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    Token* token = rnic::message_of<Token>(gp);
    if (!token) return;
    ++token->crossings;
    delay += latency_;
    if (!timed_) {
      sender_.send(out_isock, *token, delay);
      return;
    }
    // One token per initiation interval, as a pipeline stage serves them: each token is due at
    // its own time, so each costs the kernel an activation (tokens due together would share
    // one, which a read stream's tokens seldom do). Due times stay in order.
    const sc_core::sc_time now = rnic::sim_time(*this);
    last_due_ = std::max(now + delay, last_due_ + interval_);
    held_.push_back({last_due_, token});
    due_event_.notify(held_.front().due - now);
  }

  void release() {
    const sc_core::sc_time now = rnic::sim_time(*this);
    while (!held_.empty() && held_.front().due <= now) {
      Token* token = held_.front().token;
      held_.pop_front();
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      sender_.send(out_isock, *token, delay);
    }
    if (!held_.empty()) due_event_.notify(held_.front().due - now);
  }

  const sc_core::sc_time latency_{10, sc_core::SC_NS};
  const sc_core::sc_time interval_{1, sc_core::SC_NS};
  sc_core::sc_time last_due_;
  bool timed_;
  Sender sender_;
  std::deque<Held> held_;
  sc_core::sc_event due_event_;
};

// Starts WINDOW tokens, then one more for each that comes back, until TOKENS have made the trip.
class Source : public sc_core::sc_module {
 public:
  rnic::InitiatorSocket<Source> out_isock;
  rnic::TargetSocket<Source> back_tsock;

  Source(sc_core::sc_module_name name, uint64_t tokens, uint64_t crossings, bool timed,
         uint32_t window, bool bare)
      : sc_module(name), out_isock("out_isock"), back_tsock("back_tsock"), tokens_(tokens),
        crossings_(crossings), timed_(timed), slots_(window), sender_(bare) {
    back_tsock.register_b_transport(this, &Source::back_b_transport);
    sender_.keep_one();
    SC_HAS_PROCESS(Source);
    SC_THREAD(run);
  }
  uint64_t done() const { return done_; }
  uint64_t wrong_paths() const { return wrong_paths_; }

 private:
  void run() {
    if (!timed_) {
      // Untimed, a whole trip is one call: trips go one after another from here (started
      // from the return instead, each would nest inside the last).
      while (started_ < tokens_) start(slots_.front());
      return;
    }
    // The first WINDOW go out now; each return starts one more (back_b_transport).
    for (Token& slot : slots_) {
      if (started_ == tokens_) break;
      start(slot);
    }
  }
  void start(Token& token) {
    ++started_;
    token.crossings = 0;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    sender_.send(out_isock, token, delay);
  }
  void back_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    Token* token = rnic::message_of<Token>(gp);
    if (!token) return;
    ++done_;
    if (token->crossings + 1 != crossings_) ++wrong_paths_;  // + 1: this crossing
    // Timed, the return comes from a stage's process: the next trip runs from here to the first
    // timed stage.
    if (timed_ && started_ < tokens_) start(*token);
  }

  uint64_t tokens_;
  uint64_t crossings_;
  bool timed_;
  std::vector<Token> slots_;
  Sender sender_;
  uint64_t started_ = 0;
  uint64_t done_ = 0;
  uint64_t wrong_paths_ = 0;
};

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

  // CROSSINGS - 1 hops and the way back to the source. The timed ones are spread evenly.
  Source source("source", tokens, crossings, timed > 0, uint32_t(timed ? window : 1), bare);
  std::vector<std::unique_ptr<Hop>> hops;
  const uint64_t n = crossings - 1;
  for (uint64_t i = 0; i < n; ++i) {
    const bool is_timed = timed && (i * timed) / n != ((i + 1) * timed) / n;
    hops.push_back(std::make_unique<Hop>(("hop_" + std::to_string(i)).c_str(), is_timed, bare));
  }
  if (hops.empty()) {
    source.out_isock.bind(source.back_tsock);
  } else {
    source.out_isock.bind(hops.front()->in_tsock);
    for (size_t i = 0; i + 1 < hops.size(); ++i) hops[i]->out_isock.bind(hops[i + 1]->in_tsock);
    hops.back()->out_isock.bind(source.back_tsock);
  }
  sc_core::sc_start();
  std::cout << "tokens " << source.done() << " crossings " << crossings << " timed " << timed
            << " window " << (timed ? window : 1) << " sends " << (bare ? "bare" : "as-units")
            << " deltas " << sc_core::sc_delta_count() << " sim_ns "
            << uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5) << "\n";
  if (source.done() != tokens || source.wrong_paths() != 0) {
    std::cerr << "rnicsim_hop_floor: " << source.done() << " of " << tokens << " tokens back, "
              << source.wrong_paths() << " by another path\n";
    return 1;
  }
  return 0;
}

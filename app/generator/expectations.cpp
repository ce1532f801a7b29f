// SPDX-License-Identifier: Apache-2.0
// Expectations written from the reference model: polls, memory checks, the refill of an
// existing scenario (`rnicsim expect`), and the one-step-per-line file format.
#include <sstream>

#include "app/generator/generator.h"
#include "app/scenario/scenario.h"
#include "host_api/ndk.h"

namespace rnic::app {

namespace {

constexpr size_t kMinFillRun = 16;  // shorter constant runs read better as hex bytes

OrderedJson expected_completion(const refm::Completion& c) {
  OrderedJson e;
  e["context"] = c.context;
  e["type"] = ndk::operation_type_name(c.type);
  e["status"] = ndk::status_name(c.status);
  e["qp_context"] = c.qp_context;
  // BytesTransferred is meaningful for receives (R4.cqe.bytes); TypeSpecific carries the
  // invalidated token of a ReceiveAndInvalidate.
  if (!c.send_queue && c.status == ndk::STATUS_SUCCESS) e["bytes"] = c.bytes;
  if (c.type == ndk::NdkOperationTypeReceiveAndInvalidate) e["type_specific"] = c.type_specific;
  // The rule that decided it: an implementation that fails a request for another reason than
  // the model's diverges here, even when the status agrees.
  if (c.rule != RuleId::None) e["rule"] = rule_name(c.rule);
  return e;
}

std::string hex_of(const std::vector<uint8_t>& bytes, size_t from, size_t to) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = from; i < to; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s;
}

// Length of the run starting at `i` that a fill describes; `fill` gets its name.
size_t fill_run(const std::vector<uint8_t>& b, size_t i, std::string* fill) {
  size_t constant = i, incrementing = i;
  while (constant < b.size() && b[constant] == b[i]) ++constant;
  while (incrementing < b.size() && b[incrementing] == uint8_t(incrementing)) ++incrementing;
  if (incrementing - i > constant - i) {
    *fill = "incrementing";
    return incrementing - i;
  }
  static const char* digits = "0123456789ABCDEF";
  *fill =
      b[i] == 0 ? std::string("zero") : std::string("0x") + digits[b[i] >> 4] + digits[b[i] & 15];
  return constant - i;
}

// Compact JSON with a space after ':' and ',' (the style of the shipped scenarios).
void write_compact(std::ostream& out, const OrderedJson& j) {
  if (j.is_object()) {
    out << '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      out << (first ? "" : ", ") << OrderedJson(it.key()).dump() << ": ";
      write_compact(out, it.value());
      first = false;
    }
    out << '}';
  } else if (j.is_array()) {
    out << '[';
    for (size_t i = 0; i < j.size(); ++i) {
      out << (i ? ", " : "");
      write_compact(out, j[i]);
    }
    out << ']';
  } else {
    out << j.dump();
  }
}

}  // namespace

OrderedJson poll_step(const std::string& cq, const std::vector<refm::Completion>& completions) {
  OrderedJson p;
  p["op"] = "poll";
  p["cq"] = cq;
  p["count"] = completions.size();
  if (!completions.empty()) {
    p["expect"] = OrderedJson::array();
    for (const refm::Completion& c : completions) p["expect"].push_back(expected_completion(c));
  }
  return p;
}

std::vector<OrderedJson> memory_checks(const std::string& buffer,
                                       const std::vector<uint8_t>& bytes) {
  std::vector<OrderedJson> out;
  size_t i = 0, raw = 0;  // [raw, i): bytes not yet covered by a run
  auto flush_raw = [&](size_t end) {
    if (raw == end) return;
    OrderedJson s;
    s["op"] = "expect_memory";
    s["buffer"] = buffer;
    s["offset"] = raw;
    s["bytes"] = hex_of(bytes, raw, end);
    out.push_back(s);
  };
  while (i < bytes.size()) {
    std::string fill;
    const size_t n = fill_run(bytes, i, &fill);
    if (n < kMinFillRun && i + n < bytes.size()) {
      ++i;
      continue;
    }
    if (n < kMinFillRun) {  // a short tail: hex with what precedes it
      i = bytes.size();
      break;
    }
    flush_raw(i);
    OrderedJson s;
    s["op"] = "expect_memory";
    s["buffer"] = buffer;
    s["offset"] = i;
    s["length"] = n;
    s["fill"] = fill;
    out.push_back(s);
    i += n;
    raw = i;
  }
  flush_raw(bytes.size());
  return out;
}

OrderedJson refill_expectations(const std::string& text, const RefOptions& options,
                                std::vector<std::string>* races) {
  const Scenario scenario = load_scenario(text);
  OrderedJson root = OrderedJson::parse(text);
  ReferenceModel model(scenario, options);
  OrderedJson steps = OrderedJson::array();
  std::vector<std::string> buffers;
  for (const Step& step : scenario.steps) {
    OrderedJson j = root["steps"][step.index];
    if (step.op == Op::ExpectMemory) continue;  // replaced by the checks at the end
    const std::string race = model.race(step);
    if (!race.empty() && races) {
      races->push_back("steps[" + std::to_string(step.index) + "] (" + op_name(step.op) +
                       "): " + race);
    }
    if (step.op == Op::Poll) {
      const RefOutcome o = model.execute(step, true);
      OrderedJson p = poll_step(step.cq, o.polled);
      j["count"] = p["count"];
      if (p.contains("expect")) {
        j["expect"] = p["expect"];
      } else {
        j.erase("expect");
      }
      j.erase("overflow");
    } else {
      const RefOutcome o = model.execute(step);
      if (o.status && *o.status == ndk::STATUS_SUCCESS) j.erase("expect");
      if (o.status && *o.status != ndk::STATUS_SUCCESS) j["expect"] = ndk::status_name(*o.status);
      if (step.op == Op::Alloc) buffers.push_back(step.name);
    }
    steps.push_back(j);
  }
  // Settle before the memory checks: poll what is pending, wait out silent requests.
  for (int round = 0; round < 4 && !model.settled(); ++round) {
    std::vector<std::string> cqs;
    for (const auto& [name, cq] : model.state().cqs) {
      if (!cq.pending.empty()) cqs.push_back(name);
    }
    const refm::Batch& batch = model.state().batch;
    if (cqs.empty() && batch.quiet) cqs.push_back(model.state().qps.at(batch.qp).cq);
    for (const std::string& cq : cqs) {
      Step poll;
      poll.op = Op::Poll;
      poll.cq = cq;
      steps.push_back(poll_step(cq, model.execute(poll, true).polled));
    }
  }
  if (!model.settled() && races)
    races->push_back("end: deferred requests were never submitted (no later post rang)");
  for (const std::string& b : buffers) {
    for (OrderedJson& check : memory_checks(b, model.memory(b))) steps.push_back(check);
  }
  root["steps"] = steps;
  return root;
}

std::string format_scenario(const OrderedJson& scenario) {
  std::ostringstream out;
  out << "{\n";
  bool first = true;
  for (auto it = scenario.begin(); it != scenario.end(); ++it) {
    out << (first ? "" : ",\n") << "  " << OrderedJson(it.key()).dump() << ": ";
    first = false;
    if (it.key() == "steps" && it.value().is_array()) {
      out << "[\n";
      for (size_t i = 0; i < it.value().size(); ++i) {
        out << "    ";
        write_compact(out, it.value()[i]);
        out << (i + 1 < it.value().size() ? ",\n" : "\n");
      }
      out << "  ]";
    } else {
      write_compact(out, it.value());
    }
  }
  out << "\n}\n";
  return out.str();
}

}  // namespace rnic::app

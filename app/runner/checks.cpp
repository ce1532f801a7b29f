// SPDX-License-Identifier: Apache-2.0
// Executors of the ops that observe or wait: poll, expect_memory, save, wait.
#include <algorithm>
#include <systemc>
#include <vector>

#include "app/runner/context.h"
#include "app/scenario/text.h"
#include "tlm/timing.h"

namespace rnic::app {

namespace {

std::string describe(const ndk::NDK_RESULT_EX& r) {
  return ndk::operation_type_name(r.Type) + " " + ndk::status_name(r.Status) + " context " +
         std::to_string(r.RequestContext) + " bytes " + std::to_string(r.BytesTransferred);
}

std::string describe(const std::vector<ndk::NDK_RESULT_EX>& list) {
  std::string s;
  for (const auto& r : list) s += (s.empty() ? "" : "; ") + describe(r);
  return s.empty() ? "none" : s;
}

std::string hex_bytes(const std::vector<uint8_t>& data, size_t from, size_t count) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = from; i < data.size() && i < from + count; ++i) {
    s += digits[data[i] >> 4];
    s += digits[data[i] & 15];
  }
  return s;
}

}  // namespace

void exec_poll(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.cq);
  const uint32_t cq = ctx.handle(step.cq);
  const sc_core::sc_time timeout(double(step.timeout_ns), sc_core::SC_NS);
  result.completions = a.WaitCq(cq, step.count, timeout, &result.took_effect, &result.rules);
  const auto& got = result.completions;
  const std::string within = " within " + std::to_string(step.timeout_ns) + " ns";
  if (step.count == 0 && !got.empty()) {
    fail_step(result, "no completion", describe(got),
              "expected no completion" + within + ", got " + std::to_string(got.size()) + ": " +
                  describe(got));
    return;
  }
  if (got.size() < step.count) {
    fail_step(result, std::to_string(step.count) + " completions", describe(got),
              "expected " + std::to_string(step.count) + " completion(s)" + within + ", got " +
                  std::to_string(got.size()) + ": " + describe(got));
    return;
  }
  for (size_t i = 0; i < step.completions.size(); ++i) {
    const CompletionExpect& want = step.completions[i];
    const ndk::NDK_RESULT_EX& r = got[i];
    // One expected completion reads like an inline check; several are numbered.
    const std::string which =
        step.completions.size() > 1 ? "completion " + std::to_string(i) + ": " : "";
    // The rule beside each status: a divergence names the decision on both sides.
    const RuleId rule = i < result.rules.size() ? result.rules[i] : RuleId::None;
    auto with_rule = [](const std::string& status, std::optional<RuleId> id) {
      return id && *id != RuleId::None ? status + " (" + rule_name(*id) + ")" : status;
    };
    if (want.status && *want.status != r.Status) {
      const std::string e = with_rule(ndk::status_name(*want.status), want.rule);
      const std::string g = with_rule(ndk::status_name(r.Status), rule);
      fail_step(result, e, g,
                which + "expected status " + e + ", got " + g + " (" + describe(r) + ")");
      return;
    }
    if (want.rule && *want.rule != rule) {
      const std::string e = rule_name(*want.rule);
      const std::string g = rule == RuleId::None ? "none" : rule_name(rule);
      fail_step(result, e, g,
                which + "expected rule " + e + ", got " + g + " (" + describe(r) + ")");
      return;
    }
    if (want.type && *want.type != r.Type) {
      const std::string e = ndk::operation_type_name(*want.type);
      const std::string g = ndk::operation_type_name(r.Type);
      fail_step(result, e, g,
                which + "expected type " + e + ", got " + g + " (" + describe(r) + ")");
      return;
    }
    // The numeric fields, each checked only when the step gives it.
    const struct {
      const char* name;
      const std::optional<Value>& want;
      uint64_t got;
    } numbers[] = {{"context", want.context, r.RequestContext},
                   {"bytes", want.bytes, r.BytesTransferred},
                   {"qp_context", want.qp_context, r.QPContext},
                   {"type_specific", want.type_specific, r.TypeSpecific}};
    for (const auto& n : numbers) {
      if (!n.want || ctx.resolve(*n.want) == n.got) continue;
      const std::string e = std::to_string(ctx.resolve(*n.want));
      const std::string g = std::to_string(n.got);
      fail_step(result, e, g,
                which + "expected " + n.name + " " + e + ", got " + g + " (" + describe(r) + ")");
      return;
    }
  }
  // A full ring is an error, never a silent drop (R1.cq.overflow).
  // `overflow: true` expects the ring to have overflowed; otherwise an overflow is a failure.
  const bool overflowed = a.CqOverflowed(cq);
  if (overflowed != step.expect_overflow)
    fail_step(result, overflowed ? "no overflow" : "overflow",
              overflowed ? "overflow" : "no overflow",
              "CQ " + quote(step.cq) + (overflowed ? " overflowed" : " did not overflow"));
}

namespace {

// fill_memory and expect_memory work through chunks: a 1 GiB check must not hold two 1 GiB
// copies besides the buffers (docs/user-guide.md, Limits: the memory budget counts them).
constexpr uint64_t kChunkBytes = 1 << 20;

// The bytes of `fill` at [offset, offset + count) of a buffer (incrementing counts from the
// buffer's start, as alloc's fill does).
void fill_chunk(const Step& step, uint64_t offset, uint8_t* out, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    out[i] = step.fill == Fill::Incrementing ? uint8_t(offset + i)
             : step.fill == Fill::Byte       ? step.fill_byte
                                             : uint8_t(0);
  }
}

StepInvalid outside(const Value& offset_value, uint64_t offset, uint64_t length,
                    const std::string& buffer) {
  return StepInvalid(offset_value.path, "offset " + std::to_string(offset) + " + length " +
                                            std::to_string(length) + " is outside buffer " +
                                            quote(buffer));
}

}  // namespace

void exec_fill_memory(RunContext& ctx, const Step& step, StepResult&) {
  // The host CPU writes the bytes now, at the current simulated time (a plain store).
  const RtObject& buf = ctx.object(step.buffer);
  const uint64_t offset = ctx.resolve(step.offset);
  const uint64_t length = step.length.literal;
  if (offset > buf.buffer.size || length > buf.buffer.size - offset)
    throw outside(step.offset, offset, length, step.buffer);
  std::vector<uint8_t> bytes(std::min(length, kChunkBytes));
  for (uint64_t done = 0; done < length; done += bytes.size()) {
    const uint64_t n = std::min<uint64_t>(bytes.size(), length - done);
    fill_chunk(step, offset + done, bytes.data(), n);
    if (!ctx.adapter(buf.node).WriteBuffer(buf.buffer, offset + done, bytes.data(), n))
      throw outside(step.offset, offset, length, step.buffer);
  }
}

void exec_expect_memory(RunContext& ctx, const Step& step, StepResult& result) {
  const RtObject& buf = ctx.object(step.buffer);
  host::Adapter& a = ctx.adapter(buf.node);
  const uint64_t offset = ctx.resolve(step.offset);
  const uint64_t length = step.length.literal;
  if (offset > buf.buffer.size || length > buf.buffer.size - offset)
    throw outside(step.offset, offset, length, step.buffer);
  const RtObject* other = step.equals_buffer.empty() ? nullptr : &ctx.object(step.equals_buffer);
  const uint64_t other_offset = other ? ctx.resolve(step.equals_offset) : 0;
  if (other && (other_offset > other->buffer.size || length > other->buffer.size - other_offset))
    throw outside(step.equals_offset, other_offset, length, step.equals_buffer);
  // Compared chunk by chunk; the first difference is shown (16 bytes from it, which may run
  // into the next chunk) and every difference counted.
  const size_t shown = 16;
  std::vector<uint8_t> actual, wanted;
  std::string want_text, got_text;
  uint64_t first = UINT64_MAX, differ = 0;
  uint8_t first_want = 0, first_got = 0;
  for (uint64_t done = 0; done < length; done += kChunkBytes) {
    const uint64_t n = std::min(kChunkBytes, length - done);
    actual.resize(n);
    wanted.resize(n);
    if (!a.ReadBuffer(buf.buffer, offset + done, actual.data(), n))
      throw outside(step.offset, offset, length, step.buffer);
    if (other) {
      if (!ctx.adapter(other->node)
               .ReadBuffer(other->buffer, other_offset + done, wanted.data(), n))
        throw outside(step.equals_offset, other_offset, length, step.equals_buffer);
    } else if (!step.bytes.empty()) {
      std::copy(step.bytes.begin() + ptrdiff_t(done), step.bytes.begin() + ptrdiff_t(done + n),
                wanted.begin());
    } else {
      fill_chunk(step, offset + done, wanted.data(), n);
    }
    for (uint64_t i = 0; i < n; ++i) {
      if (actual[i] == wanted[i]) continue;
      ++differ;
      if (first == UINT64_MAX) {
        first = done + i;
        first_want = wanted[i];
        first_got = actual[i];
      }
    }
    // The hex of the 16 bytes from the first difference, across a chunk boundary too.
    if (first != UINT64_MAX && want_text.size() < 2 * shown) {
      const uint64_t from = std::max(first, done) - done;
      const size_t take = std::min<size_t>(shown - want_text.size() / 2, size_t(n - from));
      want_text += hex_bytes(wanted, from, take);
      got_text += hex_bytes(actual, from, take);
    }
  }
  if (differ == 0) return;
  fail_step(result, want_text, got_text,
            "byte " + std::to_string(first) + " (offset " + std::to_string(offset + first) +
                " of " + quote(step.buffer) + "): expected " + hex(first_want) + ", got " +
                hex(first_got) + "; " + std::to_string(differ) + " of " + std::to_string(length) +
                " bytes differ");
}

void exec_save(RunContext& ctx, const Step& step, StepResult&) {
  ctx.saved[step.name] = ctx.resolve(step.value);
}

void exec_wait_async(RunContext& ctx, const Step& step, StepResult& result) {
  auto it = ctx.async_calls.find(step.mr);
  if (it == ctx.async_calls.end() || !it->second) {
    fail_step(result, "an asynchronous call on " + quote(step.mr), "none",
              "no asynchronous call was made on " + quote(step.mr));
    return;
  }
  host::AsyncRequest& call = *it->second;
  const sc_core::sc_time deadline =
      sc_core::sc_time_stamp() + sc_core::sc_time(double(step.timeout_ns), sc_core::SC_NS);
  while (!call.done && sc_core::sc_time_stamp() < deadline) {
    sc_core::wait(deadline - sc_core::sc_time_stamp(), call.completed);
    settle_current_time();
  }
  if (!call.done) {
    fail_step(result, "completion", "still pending",
              "the asynchronous call on " + quote(step.mr) + " did not complete within " +
                  std::to_string(step.timeout_ns) + " ns");
    return;
  }
  ctx.check_status(step, call.status, ctx.adapter_of(step.mr), result);
}

void exec_wait(RunContext&, const Step& step, StepResult&) {
  sc_core::wait(sc_core::sc_time(double(step.ns), sc_core::SC_NS));
  settle_current_time();
}

}  // namespace rnic::app

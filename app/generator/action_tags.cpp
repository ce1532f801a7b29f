// SPDX-License-Identifier: Apache-2.0
#include "app/generator/action_tags.h"

#include <initializer_list>
#include <string>

namespace rnic::app::gen {

namespace {

// Completion types whose requests a healthy QP completes; a QP in error flushes them all.
const char* const kTypes[] = {"Read",       "Write",   "Send", "Bind", "FastRegister",
                              "Invalidate", "Receive"};

Tags status_tags(const char* status) {
  Tags t;
  for (const char* type : kTypes) t.push_back(std::string("status:") + type + ":" + status);
  return t;
}

// The flag bins of posting `verb` with each flag the generator may give it.
Tags flag_bins(const char* verb, std::initializer_list<const char*> flags) {
  Tags t;
  for (const char* f : flags) t.push_back(std::string("flag:") + f + ":" + verb);
  return t;
}

}  // namespace

// A QP that can post: every success (a ReceiveAndInvalidate too); one in error: flushes.
const Tags& healthy_tags() {
  static const Tags t = [] {
    Tags s = status_tags("STATUS_SUCCESS");
    s.push_back("status:ReceiveAndInvalidate:");
    return s;
  }();
  return t;
}

const Tags& flushed_tags() {
  static const Tags t = [] {
    Tags s = status_tags("STATUS_CANCELLED");
    s.push_back("rule:R4.error.");
    s.push_back("rule:R5.flush:");
    return s;
  }();
  return t;
}

Tags join(Tags a, const Tags& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const Tags& read_tags() {
  static const Tags t = join(
      {"status:Read:", "rule:R5.read.", "object:read_sink:", "object:remote_read:",
       "side:requester:read", "side:responder:read", "side:requester:read_local_invalidate",
       "object:invalidate:", "rule:R5.inv.", "rule:R3.remote_resources:", "rule:R5.peer_error:",
       "rule:R2.inline:", "rule:R2.solicit:", "rule:R4.inline."},
      flag_bins("read", {"SILENT_SUCCESS", "READ_FENCE", "DEFER", "INLINE",
                         "RDMA_READ_LOCAL_INVALIDATE"}));
  return t;
}

const Tags& write_tags() {
  static const Tags t =
      join({"status:Write:", "rule:R5.write.", "object:source:", "object:remote_write:",
            "side:requester:write", "side:responder:write", "rule:R3.remote_resources:",
            "rule:R5.peer_error:", "rule:R2.inline:", "rule:R2.solicit:", "rule:R4.inline."},
           flag_bins("write", {"SILENT_SUCCESS", "READ_FENCE", "DEFER", "INLINE"}));
  return t;
}

const Tags& send_tags() {
  static const Tags t = join(
      join({"status:Send:", "status:Receive:", "status:ReceiveAndInvalidate:", "rule:R5.send.",
            "rule:R5.send_inv.", "rule:R5.recv.key:", "rule:R5.write.source:", "object:source:",
            "object:receive_sge:", "object:invalidate:", "rule:R5.inv.", "side:requester:send",
            "side:requester:send_invalidate", "side:responder:receive",
            "side:responder:send_invalidate", "rule:R4.inline.", "rule:R2.inline:",
            "rule:R5.peer_error:", "rule:R4.error.flush_receives:"},
           flag_bins("send", {"SILENT_SUCCESS", "READ_FENCE", "INLINE"})),
      flag_bins("send_invalidate", {"SILENT_SUCCESS", "READ_FENCE", "INLINE"}));
  return t;
}

// A Bind also makes the windows that reads, writes and SendAndInvalidates then reach.
const Tags& bind_tags() {
  static const Tags t = join(
      {"status:Bind:", "rule:R5.bind.", "object:bind:", "side:requester:bind",
       "rule:R4.inline.bind_remote_write:", "rule:R2.solicit:", "object:remote_read:mw:",
       "object:remote_write:mw:", "object:invalidate:mw:", "rule:R5.read.resp.window_qp:",
       "rule:R5.write.resp.window_qp:", "rule:R5.inv.", "rule:R5.dereg.busy:",
       "status:ReceiveAndInvalidate:STATUS_SUCCESS", "rule:R5.send_inv.success:"},
      flag_bins("bind", {"SILENT_SUCCESS", "READ_FENCE", "INLINE", "ALLOW_REMOTE_READ",
                         "ALLOW_REMOTE_WRITE"}));
  return t;
}

const Tags& invalidate_tags() {
  static const Tags t =
      join({"status:Invalidate:", "rule:R5.inv.", "object:invalidate:",
            "side:requester:invalidate", "rule:R5.read.resp.valid:", "rule:R5.write.resp.valid:",
            "object:remote_read:mw:free", "object:remote_read:fast_mr:free",
            "object:remote_write:mw:free", "object:remote_write:fast_mr:free",
            "object:fast_register:fast_mr:free", "object:bind:mw:free"},
           flag_bins("invalidate", {"SILENT_SUCCESS", "READ_FENCE", "INLINE"}));
  return t;
}

// A FastRegister also makes the regions that later requests then reach.
const Tags& fast_register_tags() {
  static const Tags t = join(
      {"status:FastRegister:", "rule:R5.fr.", "rule:R4.inline.fr_remote_access:",
       "rule:R2.remote_write_implies_local:", "object:fast_register:",
       "side:requester:fast_register", "rule:R3.invalid_parameter:",
       "status:ReceiveAndInvalidate:STATUS_SUCCESS", "rule:R5.send_inv.success:", "rule:R5.inv.",
       "object:remote_read:fast_mr:", "object:remote_write:fast_mr:",
       "object:invalidate:fast_mr:", "object:read_sink:fast_mr:", "object:source:fast_mr:",
       "object:receive_sge:fast_mr:"},
      flag_bins("fast_register", {"SILENT_SUCCESS", "READ_FENCE", "INLINE", "ALLOW_REMOTE_READ",
                                  "ALLOW_REMOTE_WRITE"}));
  return t;
}

const Tags& registration_tags() {
  static const Tags t = {"rule:R5.reg.",           "rule:R5.dereg.",
                         "object:read_sink:mr:free", "object:source:mr:free",
                         "object:receive_sge:mr:free", "object:remote_read:mr:free",
                         "object:remote_write:mr:free", "object:invalidate:mr:free",
                         "object:fast_register:mr:free"};
  return t;
}

}  // namespace rnic::app::gen

// SPDX-License-Identifier: Apache-2.0
#include "support/base_protocol_checker.h"

#include <cstring>
#include <sstream>

namespace rnic::test {

PayloadSnapshot PayloadSnapshot::of(const tlm::tlm_generic_payload& gp) {
  PayloadSnapshot s;
  s.command = gp.get_command();
  s.address = gp.get_address();
  s.data_ptr = gp.get_data_ptr();
  s.data_length = gp.get_data_length();
  s.byte_enable_ptr = gp.get_byte_enable_ptr();
  s.byte_enable_length = gp.get_byte_enable_length();
  s.streaming_width = gp.get_streaming_width();
  if (s.command == tlm::TLM_WRITE_COMMAND && s.data_ptr) {
    s.write_data.assign(s.data_ptr, s.data_ptr + s.data_length);
  }
  return s;
}

std::vector<std::string> check_request(const tlm::tlm_generic_payload& gp, bool debug) {
  std::vector<std::string> v;
  const tlm::tlm_command command = gp.get_command();
  const unsigned length = gp.get_data_length();
  if (command != tlm::TLM_READ_COMMAND && command != tlm::TLM_WRITE_COMMAND &&
      command != tlm::TLM_IGNORE_COMMAND) {
    v.push_back("command is not READ, WRITE or IGNORE (14.10)");
  }
  if (debug) {
    // Debug transport: only the data pointer and the initial attributes of a full payload.
    if (length > 0 && !gp.get_data_ptr())
      v.push_back("debug transaction with data_ptr == 0 (11.3.4 l)");
  } else {
    if (command != tlm::TLM_IGNORE_COMMAND && !gp.get_data_ptr()) {
      v.push_back("data_ptr == 0 (14.11 e)");
    }
    if (command != tlm::TLM_IGNORE_COMMAND && length == 0) {
      v.push_back("data_length == 0 for a READ or WRITE (14.12 d)");
    }
    if (gp.get_gp_option() != tlm::TLM_MIN_PAYLOAD)
      v.push_back("gp_option != TLM_MIN_PAYLOAD (14.8 g)");
    if (gp.is_dmi_allowed()) v.push_back("dmi_allowed set by the initiator (14.16)");
    if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE) {
      v.push_back("response_status is not TLM_INCOMPLETE_RESPONSE on the way in (14.17 e)");
    }
  }
  if (gp.get_streaming_width() == 0 && !(debug && length == 0)) {
    v.push_back("streaming_width == 0 (14.15 f)");
  }
  if (const unsigned char* be = gp.get_byte_enable_ptr()) {
    const unsigned be_length = gp.get_byte_enable_length();
    if (be_length == 0) v.push_back("byte_enable_ptr set with byte_enable_length == 0 (14.14 f)");
    for (unsigned i = 0; i < be_length; ++i) {
      if (be[i] != TLM_BYTE_DISABLED && be[i] != TLM_BYTE_ENABLED) {
        v.push_back("byte-enable byte neither 0x00 nor 0xff (14.14 e)");
        break;
      }
    }
  }
  // The bytes touched: [address, address + min(streaming width, length)).
  const uint64_t sw = gp.get_streaming_width();
  const uint64_t span = sw && sw < length ? sw : length;
  if (span > 0 && gp.get_address() > UINT64_MAX - (span - 1)) {
    v.push_back("address + data length wraps past 2^64 (14.9)");
  }
  return v;
}

std::vector<std::string> check_returned(const PayloadSnapshot& before,
                                        const tlm::tlm_generic_payload& gp, bool debug) {
  std::vector<std::string> v;
  if (!debug && gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) {
    v.push_back("target returned with response_status TLM_INCOMPLETE_RESPONSE (14.17 b)");
  }
  if (gp.get_command() != before.command) v.push_back("command modified (14.10 d)");
  if (gp.get_address() != before.address) v.push_back("address modified on return (14.9)");
  if (gp.get_data_ptr() != before.data_ptr) v.push_back("data_ptr modified (14.11 d)");
  if (gp.get_data_length() != before.data_length) v.push_back("data_length modified (14.12 e)");
  if (gp.get_byte_enable_ptr() != before.byte_enable_ptr ||
      gp.get_byte_enable_length() != before.byte_enable_length) {
    v.push_back("byte_enable_ptr or byte_enable_length modified (14.14 g)");
  }
  if (gp.get_streaming_width() != before.streaming_width)
    v.push_back("streaming_width modified (14.15 g)");
  if (before.command == tlm::TLM_WRITE_COMMAND && gp.get_data_ptr() == before.data_ptr &&
      before.data_ptr && std::memcmp(before.data_ptr, before.write_data.data(),
                                     before.write_data.size()) != 0) {
    v.push_back("the data of a WRITE modified by the target (14.11 g)");
  }
  return v;
}

BaseProtocolChecker::BaseProtocolChecker(sc_core::sc_module_name name, bool report)
    : sc_module(name), tsock("tsock"), isock("isock"), report_(report) {
  tsock.register_b_transport(this, &BaseProtocolChecker::b_transport);
  tsock.register_transport_dbg(this, &BaseProtocolChecker::transport_dbg);
}

void BaseProtocolChecker::flag(const std::vector<std::string>& found,
                               const tlm::tlm_generic_payload& gp, const char* where) {
  for (const std::string& rule : found) {
    std::ostringstream text;
    text << name() << ": " << where << ": " << rule << " [command " << int(gp.get_command())
         << ", address 0x" << std::hex << gp.get_address() << std::dec << ", length "
         << gp.get_data_length() << "]";
    violations_.push_back(text.str());
    if (report_) SC_REPORT_WARNING("rnicsim/tlm_checker", text.str().c_str());
  }
}

void BaseProtocolChecker::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  ++transactions_;
  flag(check_request(gp, false), gp, "b_transport call");
  const PayloadSnapshot before = PayloadSnapshot::of(gp);
  const sc_core::sc_time local_time = sc_core::sc_time_stamp() + delay;
  isock->b_transport(gp, delay);
  std::vector<std::string> found = check_returned(before, gp, false);
  if (sc_core::sc_time_stamp() + delay < local_time) {
    found.push_back("local time (sc_time_stamp() + delay) moved backwards (11.1.3)");
  }
  flag(found, gp, "b_transport return");
}

unsigned BaseProtocolChecker::transport_dbg(tlm::tlm_generic_payload& gp) {
  ++debug_transactions_;
  flag(check_request(gp, true), gp, "transport_dbg call");
  const PayloadSnapshot before = PayloadSnapshot::of(gp);
  const unsigned count = isock->transport_dbg(gp);
  std::vector<std::string> found = check_returned(before, gp, true);
  if (count > gp.get_data_length()) {
    found.push_back("transport_dbg returned more bytes than data_length (11.3.4 s)");
  }
  flag(found, gp, "transport_dbg return");
  return count;
}

}  // namespace rnic::test

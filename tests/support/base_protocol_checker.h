// SPDX-License-Identifier: Apache-2.0
// A TLM-2.0 base-protocol checker for the loosely-timed interfaces (b_transport and
// transport_dbg): a pass-through module put between an initiator and its target that checks
// every transaction against IEEE 1666-2011 section 14 (generic payload rules) and 11.1/11.3
// (blocking and debug transport), and records each violation with its clause. SystemC ships
// one (tlm_utils/tlm2_base_protocol_checker.h) only in Accellera's source tree, not in Debian.
//
// Checked on the way in (the initiator's duties): command is READ, WRITE or IGNORE; response
// status TLM_INCOMPLETE_RESPONSE (14.17 e); gp_option TLM_MIN_PAYLOAD (14.8 g); DMI hint not
// set (14.16); data pointer non-null and data length non-zero unless IGNORE (14.11 e,
// 14.12 d); streaming width non-zero (14.15 f); byte-enable length non-zero when the pointer is
// set and every byte-enable byte 0x00 or 0xff (14.14); address + length not wrapping 2^64.
// Checked on return (the target's and interconnect's duties): response status no longer
// INCOMPLETE (14.17); address, command, data pointer, data length, byte-enable pointer and
// length, streaming width unchanged (14.9-14.15); the bytes of a WRITE unchanged (14.11); local
// time (sc_time_stamp() + delay) not moved backwards (11.1.3: the callee may only add to the
// annotation, or wait and reduce it by as much). transport_dbg: data pointer non-null when
// length > 0, byte count returned not above the data length (11.3.4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace rnic::test {

// The rules as plain functions (no kernel needed); each returns the violations it finds.
struct PayloadSnapshot {
  tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
  uint64_t address = 0;
  unsigned char* data_ptr = nullptr;
  unsigned data_length = 0;
  unsigned char* byte_enable_ptr = nullptr;
  unsigned byte_enable_length = 0;
  unsigned streaming_width = 0;
  std::vector<unsigned char> write_data;  // the bytes of a WRITE, to check they stay put
  static PayloadSnapshot of(const tlm::tlm_generic_payload& gp);
};
std::vector<std::string> check_request(const tlm::tlm_generic_payload& gp, bool debug);
std::vector<std::string> check_returned(const PayloadSnapshot& before,
                                        const tlm::tlm_generic_payload& gp, bool debug);

class BaseProtocolChecker : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<BaseProtocolChecker> tsock;     // from the initiator
  tlm_utils::simple_initiator_socket<BaseProtocolChecker> isock;  // to the target

  // `report`: also raise each violation as an SC_REPORT_WARNING "rnicsim/tlm_checker" (the
  // test report handler turns it into a test failure).
  explicit BaseProtocolChecker(sc_core::sc_module_name name, bool report = true);

  const std::vector<std::string>& violations() const { return violations_; }
  uint64_t transactions() const { return transactions_; }
  uint64_t debug_transactions() const { return debug_transactions_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  void flag(const std::vector<std::string>& found, const tlm::tlm_generic_payload& gp,
            const char* where);

  bool report_;
  std::vector<std::string> violations_;
  uint64_t transactions_ = 0;
  uint64_t debug_transactions_ = 0;
};

}  // namespace rnic::test

// SPDX-License-Identifier: Apache-2.0
// rnicsim_protection_checker: the protection checker's decision datapath in RTL (Stage 1).
//
// The decision itself is rnicsim_protection_decide (protection_decide.sv); this module is the
// pin contract, the seeded bugs' select, the input register and the result pipeline.
//
// Contract
// - Twin of the rule functions of model/rnic/protection/protection_rules.cpp: for every request
//   it answers the status and the rule of the first failing check, in the normative order of
//   docs/behaviour.md (R5.*) and checks_of() (model/rnic/abi/rules.cpp), bit for bit.
// - The MPT entries arrive with the request as raw 64-byte lines (MptEntry::encode layout,
//   byte i = bits 8i+7:8i); the entry cache stays outside. An updated entry leaves on
//   rsp_line0/1 with rsp_write0/1, re-encoded from its decoded fields: state and kind
//   normalized, bytes 7 and 48..63 zero.
// - Ops (req_op): OP_LOCAL_ACCESS check_local_access (list req_checks), OP_REMOTE_ACCESS
//   check_remote_access (line1 = the window's parent MR when req_line1_present), OP_BIND
//   apply_bind (line0 = window, line1 = MR), OP_FR_CHECK check_fast_register (4 KiB pages),
//   OP_FR_COMMIT apply_fast_register, OP_INVALIDATE apply_invalidate, OP_RELEASE_WINDOW one
//   bound window less on line0 (the window's parent MR). Another op value answers
//   STATUS_LOCAL_QP_OPERATION, RULE_NONE (as ProtectionChecker::handle's default).
// - Outputs an op does not define (and every result field of a refusal) read 0.
// - The numbers come from the generated package rnicsim_pkg, named with the package prefix:
//   yosys 0.23 (the synthesis check) has no package import.
//
// Timing
// - Valid/ready on both channels; in order; one request per cycle when rsp_ready is high.
// - LATENCY >= 2: the request is registered as it is taken (the input stage), the whole
//   decision is combinational from that register into the first result stage, and the other
//   LATENCY-2 result stages only carry the result (the output lines as their 48 meaningful
//   bytes, never the 512-bit input lines). LATENCY 1: the decision goes from the pins into the
//   one result stage. Either way a request accepted at a rising edge (req_valid && req_ready)
//   shows rsp_valid after exactly LATENCY rising edges when the pipeline is empty and
//   rsp_ready = 1.
// - rst_n: synchronous, active low; clears the valid bits only (data registers are not reset).
//
// Seeded bugs (only with `define RNICSIM_RTL_MUTANTS, picked by mutant_sel; 0 = correct).
// rtl/protection_checker/mutants.tsv holds the same table, naming every rule a bug can decide
// (a check the lists share: the read and write responders, or the three local lists).
//   #   rule it breaks           the bug
//   1   R5.read.sink.bounds      local bounds off by one: an access ending at the MR's end is refused
//   2   R5.read.sink.pd          local PD compare dropped
//   3   R5.read.resp.tag         remote tag compare dropped
//   4   R5.read.resp.pd          remote PD compare dropped
//   5   R5.read.resp.window_qp   window bound-QP compare dropped
//   6   R5.read.resp.rights      remote rights compare dropped
//   7   R5.read.resp.bounds      remote bounds off by one: one byte past the end is accepted
//   8   R5.bind.rebind           bind checks the window's kind only: a VALID window rebinds
//   9   R5.bind.va_zero          bind VA zero check dropped
//   10  R5.fr.capacity           fast-register page count checked against 0 only
//   11  R5.inv.bound_windows     invalidate of an MR with bound windows allowed
//   12  R5.inv.token             invalidate token tag compare dropped

`ifdef VERILATOR
// The generated package names every rule of docs/behaviour.md; this unit decides only the
// protection ones, so the package's other RULE_* parameters are unused here by design.
`verilator_config
lint_off -rule UNUSEDPARAM -file "*" -match "Parameter is not used: 'RULE_*'"
`verilog
`endif

// The file is named after the unit (rtl/<unit>/<unit>.sv), the module with the rnicsim_ prefix.
/* verilator lint_off DECLFILENAME */
module rnicsim_protection_checker #(parameter int LATENCY = 4) (   // LATENCY >= 1
/* verilator lint_on DECLFILENAME */
  input  logic         clk,
  input  logic         rst_n,            // synchronous, active low
`ifdef RNICSIM_RTL_MUTANTS
  input  logic [3:0]   mutant_sel,       // 0: correct; 1..12: one seeded bug (above)
`endif
  input  logic         req_valid,
  output logic         req_ready,
  input  logic [15:0]  req_tag,
  input  logic [2:0]   req_op,
  input  logic [2:0]   req_checks,
  input  logic [31:0]  req_token,
  input  logic [31:0]  req_mr_token,
  input  logic [31:0]  req_pd,
  input  logic [31:0]  req_qpn,
  input  logic [63:0]  req_va,
  input  logic [63:0]  req_len,
  input  logic [15:0]  req_access,
  input  logic [15:0]  req_rights,
  input  logic         req_zero_based,
  input  logic         req_by_object,
  input  logic [31:0]  req_page_count,
  input  logic [31:0]  req_fbo,
  input  logic [31:0]  req_index0,
  input  logic [31:0]  req_index1,
  input  logic         req_line1_present,
  input  logic [511:0] req_line0,
  input  logic [511:0] req_line1,
  output logic         rsp_valid,
  input  logic         rsp_ready,
  output logic [15:0]  rsp_tag,
  output logic [7:0]   rsp_status,
  output logic [15:0]  rsp_rule,
  output logic [63:0]  rsp_target_va,
  output logic [31:0]  rsp_mtt_index,
  output logic [7:0]   rsp_page_shift,
  output logic [63:0]  rsp_page_base_va,
  output logic [31:0]  rsp_new_token,
  output logic         rsp_write0,
  output logic         rsp_write1,
  output logic [511:0] rsp_line0,
  output logic [511:0] rsp_line1
);

  localparam int LINE_BITS = 384;  // bytes 0..47: the bytes MptEntry::encode writes

  // ---------------------------------------------------------------------------------------
  // Seeded bugs: mut[n] is high when mutant n is selected (constant 0 in the product build).
  logic [12:1] mut;
`ifdef RNICSIM_RTL_MUTANTS
  always_comb
    for (int n = 1; n <= 12; n++) mut[n] = (mutant_sel == 4'(n));
`else
  assign mut = '0;
`endif

  // ---------------------------------------------------------------------------------------
  // Input stage (LATENCY >= 2): the request is registered as it is taken, and the checks read
  // the register (c_*), not the pins: the decision then starts from flops, as timing closure
  // wants, and a cycle-based simulator evaluates it once per rising edge. LATENCY 1 decides
  // straight from the pins. The total latency is LATENCY either way.
  localparam bit REG_IN = LATENCY >= 2;
  localparam int RL = REG_IN ? LATENCY - 1 : LATENCY;  // result stages after the checks
  localparam int IW = 1465;
  logic [15:0] c_tag;
  logic [2:0] c_op;
  logic [2:0] c_checks;
  logic [31:0] c_token;
  logic [31:0] c_mr_token;
  logic [31:0] c_pd;
  logic [31:0] c_qpn;
  logic [63:0] c_va;
  logic [63:0] c_len;
  logic [15:0] c_access;
  logic [15:0] c_rights;
  logic c_zero_based;
  logic c_by_object;
  logic [31:0] c_page_count;
  logic [31:0] c_fbo;
  logic [31:0] c_index0;
  logic [31:0] c_index1;
  logic c_line1_present;
  logic [511:0] c_line0;
  logic [511:0] c_line1;
  logic c_valid;    // c_* hold a request
  logic res_room;   // the first result stage takes one at this edge
  logic [IW-1:0] pins_d;
  assign pins_d = {req_tag, req_op, req_checks, req_token, req_mr_token, req_pd, req_qpn,
      req_va, req_len, req_access, req_rights, req_zero_based, req_by_object, req_page_count,
      req_fbo, req_index0, req_index1, req_line1_present, req_line0, req_line1};
  generate
    if (REG_IN) begin : g_in
      logic in_v;
      logic [IW-1:0] in_q;
      logic in_load;
      assign in_load = res_room || !in_v;
      always_ff @(posedge clk) begin
        if (!rst_n) in_v <= 1'b0;
        else if (in_load) in_v <= req_valid;
      end
      always_ff @(posedge clk)
        if (in_load && req_valid) in_q <= pins_d;
      assign {c_tag, c_op, c_checks, c_token, c_mr_token, c_pd, c_qpn, c_va, c_len, c_access,
          c_rights, c_zero_based, c_by_object, c_page_count, c_fbo, c_index0, c_index1,
          c_line1_present, c_line0, c_line1} = in_q;
      assign c_valid = in_v;
      assign req_ready = in_load;
    end else begin : g_pins
      assign {c_tag, c_op, c_checks, c_token, c_mr_token, c_pd, c_qpn, c_va, c_len, c_access,
          c_rights, c_zero_based, c_by_object, c_page_count, c_fbo, c_index0, c_index1,
          c_line1_present, c_line0, c_line1} = pins_d;
      assign c_valid = req_valid;
      assign req_ready = res_room;
    end
  endgenerate

  // ---------------------------------------------------------------------------------------
  // The decision (protection_decide.sv), from the checked request c_*.
  logic [7:0]  d_status, d_shift;
  logic [15:0] d_rule;
  logic [63:0] d_target_va, d_page_base;
  logic [31:0] d_mtt, d_new_token;
  logic        d_write0, d_write1;
  logic [LINE_BITS-1:0] out_line0, out_line1;   // MptEntry::encode, bytes 0..47
  rnicsim_protection_decide decide (
    .mut,
    .c_op,
    .c_checks,
    .c_token,
    .c_mr_token,
    .c_pd,
    .c_qpn,
    .c_va,
    .c_len,
    .c_access,
    .c_rights,
    .c_zero_based,
    .c_by_object,
    .c_page_count,
    .c_fbo,
    .c_index0,
    .c_index1,
    .c_line1_present,
    .c_line0,
    .c_line1,
    .d_status,
    .d_rule,
    .d_target_va,
    .d_mtt,
    .d_shift,
    .d_page_base,
    .d_new_token,
    .d_write0,
    .d_write1,
    .out_line0,
    .out_line1
  );

  // ---------------------------------------------------------------------------------------
  // Elastic pipeline: RL result stages of {valid, payload}. A stage loads when it is empty or
  // everything after it moves on (ready runs back combinationally: full throughput).
  localparam int PW = 16 + 8 + 16 + 64 + 32 + 8 + 64 + 32 + 1 + 1 + 2 * LINE_BITS;

  logic [PW-1:0] stage0_d;
  assign stage0_d = {c_tag, d_status, d_rule, d_target_va, d_mtt, d_shift, d_page_base,
                     d_new_token, d_write0, d_write1, out_line0, out_line1};

  logic [RL-1:0]        v_q;      // stage i holds a request
  logic [RL*PW-1:0]     data_q;   // stage i's payload at [i*PW +: PW]
  logic [RL-1:0]        load;     // stage i takes what is before it at this edge
  logic [RL:0]          v_in;     // before stage i: the checked request (i = 0), stage i-1
  logic [(RL+1)*PW-1:0] d_in;
  logic                      room;

  assign v_in = {v_q, c_valid};
  assign d_in = {data_q, stage0_d};

  always_comb begin
    room = rsp_ready;
    for (int i = RL - 1; i >= 0; i--) begin
      room = room || !v_q[i];
      load[i] = room;
    end
  end
  assign res_room = load[0];

  always_ff @(posedge clk) begin
    if (!rst_n) v_q <= '0;
    else
      for (int i = 0; i < RL; i++)
        if (load[i]) v_q[i] <= v_in[i];
  end

  always_ff @(posedge clk) begin
    for (int i = 0; i < RL; i++)
      if (load[i] && v_in[i]) data_q[i*PW +: PW] <= d_in[i*PW +: PW];
  end

  logic [LINE_BITS-1:0] q_line0, q_line1;
  assign rsp_valid = v_q[RL-1];
  assign {rsp_tag, rsp_status, rsp_rule, rsp_target_va, rsp_mtt_index, rsp_page_shift,
          rsp_page_base_va, rsp_new_token, rsp_write0, rsp_write1, q_line0, q_line1} =
      data_q[(RL-1)*PW +: PW];
  assign rsp_line0 = {{(rnicsim_pkg::MPT_LINE_BITS - LINE_BITS){1'b0}}, q_line0};
  assign rsp_line1 = {{(rnicsim_pkg::MPT_LINE_BITS - LINE_BITS){1'b0}}, q_line1};

endmodule

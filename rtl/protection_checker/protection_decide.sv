// SPDX-License-Identifier: Apache-2.0
// rnicsim_protection_decide: the protection checker's decision, combinational: the checks of
// docs/behaviour.md in their normative order over one request and its MPT lines, twin of the
// rule functions of model/rnic/protection/protection_rules.cpp. rnicsim_protection_checker
// (protection_checker.sv, the pin contract and the pipeline) registers its inputs and carries
// its outputs; a design of your own can reuse it behind another pipeline.

// The file is named after what it does, the module with the rnicsim_ prefix.
/* verilator lint_off DECLFILENAME */
module rnicsim_protection_decide (
/* verilator lint_on DECLFILENAME */
  input  logic [12:1]    mut,  // seeded bugs (all 0 in the product build)
  input  logic [2:0]     c_op,
  input  logic [2:0]     c_checks,
  input  logic [31:0]    c_token,
  input  logic [31:0]    c_mr_token,
  input  logic [31:0]    c_pd,
  input  logic [31:0]    c_qpn,
  input  logic [63:0]    c_va,
  input  logic [63:0]    c_len,
  input  logic [15:0]    c_access,
  input  logic [15:0]    c_rights,
  input  logic           c_zero_based,
  input  logic           c_by_object,
  input  logic [31:0]    c_page_count,
  input  logic [31:0]    c_fbo,
  input  logic [31:0]    c_index0,
  input  logic [31:0]    c_index1,
  input  logic           c_line1_present,
  input  logic [511:0]   c_line0,
  input  logic [511:0]   c_line1,
  output logic [7:0]     d_status,
  output logic [15:0]    d_rule,
  output logic [63:0]    d_target_va,
  output logic [31:0]    d_mtt,
  output logic [7:0]     d_shift,
  output logic [63:0]    d_page_base,
  output logic [31:0]    d_new_token,
  output logic           d_write0,
  output logic           d_write1,
  output logic [383:0]   out_line0,  // MptEntry::encode, bytes 0..47 (the rest are zero)
  output logic [383:0]   out_line1
);

  // Check lists, numbered as CheckList in model/rnic/abi/rules.h (req_checks shares the
  // numbering, so a local access indexes its list by req_checks directly).
  localparam logic [2:0] LIST_READ_SINK = rnicsim_pkg::CHECKS_READ_SINK;
  localparam logic [2:0] LIST_SOURCE = rnicsim_pkg::CHECKS_SOURCE;
  localparam logic [2:0] LIST_RECEIVE_SGE = rnicsim_pkg::CHECKS_RECEIVE_SGE;
  localparam logic [2:0] LIST_REMOTE_READ = 3'd3;
  localparam logic [2:0] LIST_REMOTE_WRITE = 3'd4;
  localparam logic [2:0] LIST_BIND = 3'd5;
  localparam logic [2:0] LIST_FAST_REGISTER = 3'd6;
  localparam logic [2:0] LIST_INVALIDATE = 3'd7;

  // The rule of check k of a list: checks_of(list)[k], past the end its last rule (so every k
  // of the one-rule lists Source and ReceiveSge names that rule).
  function automatic logic [15:0] check_rule(input logic [2:0] list, input logic [3:0] k);
    logic [15:0] r;
    case (list)
      LIST_READ_SINK:
        case (k)
          4'd0: r = rnicsim_pkg::RULE_R5_read_sink_valid;
          4'd1: r = rnicsim_pkg::RULE_R5_read_sink_pd;
          4'd2: r = rnicsim_pkg::RULE_R5_read_sink_local_write;
          4'd3: r = rnicsim_pkg::RULE_R5_read_sink_bounds;
          default: r = rnicsim_pkg::RULE_R5_read_sink_read_sink;
        endcase
      LIST_SOURCE: r = rnicsim_pkg::RULE_R5_write_source;
      LIST_RECEIVE_SGE: r = rnicsim_pkg::RULE_R5_recv_key;
      LIST_REMOTE_READ:
        case (k)
          4'd0: r = rnicsim_pkg::RULE_R5_read_resp_index;
          4'd1: r = rnicsim_pkg::RULE_R5_read_resp_tag;
          4'd2: r = rnicsim_pkg::RULE_R5_read_resp_valid;
          4'd3: r = rnicsim_pkg::RULE_R5_read_resp_pd;
          4'd4: r = rnicsim_pkg::RULE_R5_read_resp_window_qp;
          4'd5: r = rnicsim_pkg::RULE_R5_read_resp_rights;
          default: r = rnicsim_pkg::RULE_R5_read_resp_bounds;
        endcase
      LIST_REMOTE_WRITE:
        case (k)
          4'd0: r = rnicsim_pkg::RULE_R5_write_resp_index;
          4'd1: r = rnicsim_pkg::RULE_R5_write_stale;
          4'd2: r = rnicsim_pkg::RULE_R5_write_resp_valid;
          4'd3: r = rnicsim_pkg::RULE_R5_write_resp_pd;
          4'd4: r = rnicsim_pkg::RULE_R5_write_resp_window_qp;
          4'd5: r = rnicsim_pkg::RULE_R5_write_rights;
          default: r = rnicsim_pkg::RULE_R5_write_bounds;
        endcase
      LIST_BIND:
        case (k)
          4'd0: r = rnicsim_pkg::RULE_R5_bind_remote_write_local_write;
          4'd1: r = rnicsim_pkg::RULE_R5_bind_rebind;
          4'd2: r = rnicsim_pkg::RULE_R5_bind_mr_valid;
          4'd3: r = rnicsim_pkg::RULE_R5_bind_pd;
          4'd4: r = rnicsim_pkg::RULE_R5_bind_va_zero;
          4'd5: r = rnicsim_pkg::RULE_R5_bind_range;
          default: r = rnicsim_pkg::RULE_R5_bind_rights_required;
        endcase
      LIST_FAST_REGISTER:
        case (k)
          4'd0: r = rnicsim_pkg::RULE_R4_inline_fr_remote_access;
          4'd1: r = rnicsim_pkg::RULE_R5_fr_kind;
          4'd2: r = rnicsim_pkg::RULE_R5_fr_free;
          4'd3: r = rnicsim_pkg::RULE_R5_fr_pd;
          4'd4: r = rnicsim_pkg::RULE_R5_fr_capacity;
          4'd5: r = rnicsim_pkg::RULE_R5_fr_fbo;
          4'd6: r = rnicsim_pkg::RULE_R5_fr_length;
          4'd7: r = rnicsim_pkg::RULE_R2_remote_write_implies_local;
          default: r = rnicsim_pkg::RULE_R5_fr_page_align;
        endcase
      default:  // LIST_INVALIDATE
        case (k)
          4'd0: r = rnicsim_pkg::RULE_R5_inv_normal_mr;
          4'd1: r = rnicsim_pkg::RULE_R5_inv_valid;
          4'd2: r = rnicsim_pkg::RULE_R5_inv_token;
          4'd3: r = rnicsim_pkg::RULE_R5_inv_bound_windows;
          default: r = rnicsim_pkg::RULE_R5_inv_pd_qp;
        endcase
    endcase
    check_rule = r;
  endfunction

  // range_inside(): [va, va+len) inside [base, base+size), overflow safe. end_excl (seeded
  // bug 1 only) refuses an access that ends exactly at the end.
  function automatic logic range_inside(input logic [63:0] va, input logic [63:0] len,
                                        input logic [63:0] base, input logic [63:0] size,
                                        input logic end_excl);
    logic [63:0] off;
    off = va - base;
    range_inside = (va >= base) && (off <= size) &&
                   (end_excl ? (len < size - off) : (len <= size - off));
  endfunction

  // region_of(): the base VA rounded down to its page. The model shifts a uint64_t by the
  // page_shift byte; a 6-bit count is what that computes on x86-64 and AArch64 (a shift of 64
  // or more is undefined in C++; the model writes 12 or 21).
  function automatic logic [63:0] page_base(input logic [63:0] base, input logic [5:0] shift);
    page_base = base & ~((64'd1 << shift) - 64'd1);
  endfunction

  // ---------------------------------------------------------------------------------------
  // MptEntry::decode of both lines: state above VALID reads as UNUSED, kind above MW as NONE.
  logic [7:0]  e0_state, e0_kind, e0_tag, e0_shift, e0_zb;
  logic [15:0] e0_access;
  logic [31:0] e0_pd, e0_mtt, e0_cap, e0_qpn, e0_parent, e0_bw;
  logic [63:0] e0_base, e0_len;
  logic [7:0]  e1_state, e1_kind, e1_tag, e1_shift, e1_zb;
  logic [15:0] e1_access;
  logic [31:0] e1_pd, e1_mtt, e1_cap, e1_qpn, e1_parent, e1_bw;
  logic [63:0] e1_base, e1_len;

  assign e0_state  = c_line0[7:0] > rnicsim_pkg::STATE_VALID ? rnicsim_pkg::STATE_UNUSED
                                                                : c_line0[7:0];
  assign e0_kind   = c_line0[15:8] > rnicsim_pkg::KIND_MW ? rnicsim_pkg::KIND_NONE
                                                             : c_line0[15:8];
  assign e0_access = c_line0[31:16];
  assign e0_tag    = c_line0[39:32];
  assign e0_shift  = c_line0[47:40];
  assign e0_zb     = c_line0[55:48];
  assign e0_pd     = c_line0[95:64];
  assign e0_mtt    = c_line0[127:96];
  assign e0_base   = c_line0[191:128];
  assign e0_len    = c_line0[255:192];
  assign e0_cap    = c_line0[287:256];
  assign e0_qpn    = c_line0[319:288];
  assign e0_parent = c_line0[351:320];
  assign e0_bw     = c_line0[383:352];

  assign e1_state  = c_line1[7:0] > rnicsim_pkg::STATE_VALID ? rnicsim_pkg::STATE_UNUSED
                                                                : c_line1[7:0];
  assign e1_kind   = c_line1[15:8] > rnicsim_pkg::KIND_MW ? rnicsim_pkg::KIND_NONE
                                                             : c_line1[15:8];
  assign e1_access = c_line1[31:16];
  assign e1_tag    = c_line1[39:32];
  assign e1_shift  = c_line1[47:40];
  assign e1_zb     = c_line1[55:48];
  assign e1_pd     = c_line1[95:64];
  assign e1_mtt    = c_line1[127:96];
  assign e1_base   = c_line1[191:128];
  assign e1_len    = c_line1[255:192];
  assign e1_cap    = c_line1[287:256];
  assign e1_qpn    = c_line1[319:288];
  assign e1_parent = c_line1[351:320];
  assign e1_bw     = c_line1[383:352];

  // Bits no rule reads: the token indexes (the caller fetched the lines; Bind's new token
  // takes its index from c_index0), index bits a token shifts out, and the line bytes
  // decode leaves alone (7, 48..63).
  /* verilator lint_off UNUSEDSIGNAL */
  logic unused_ok;
  assign unused_ok = &{1'b0, c_token[31:8], c_mr_token[31:8], c_index0[31:24],
                       c_line0[63:56], c_line0[511:384], c_line1[63:56],
                       c_line1[511:384]};
  /* verilator lint_on UNUSEDSIGNAL */

  // Decoded facts the checks read.
  logic [7:0] tok_tag, mr_tok_tag;          // token_tag(req.token), token_tag(req.mr_token)
  logic e0_valid, e0_free, e0_mw, e0_fast, e0_region, e1_valid, e1_region;
  logic ask_remote_write, rights_remote, rights_rw, rights_lw;
  assign tok_tag = c_token[7:0];
  assign mr_tok_tag = c_mr_token[7:0];
  assign e0_valid = e0_state == rnicsim_pkg::STATE_VALID;
  assign e0_free = e0_state == rnicsim_pkg::STATE_FREE;
  assign e0_mw = e0_kind == rnicsim_pkg::KIND_MW;
  assign e0_fast = e0_kind == rnicsim_pkg::KIND_FAST_MR;
  assign e0_region = e0_kind == rnicsim_pkg::KIND_MR || e0_fast;    // is_region()
  assign e1_valid = e1_state == rnicsim_pkg::STATE_VALID;
  assign e1_region = e1_kind == rnicsim_pkg::KIND_MR || e1_kind == rnicsim_pkg::KIND_FAST_MR;
  assign ask_remote_write = (c_access & rnicsim_pkg::ACCESS_REMOTE_WRITE) != 16'd0;
  assign rights_remote =
      (c_rights & (rnicsim_pkg::ACCESS_REMOTE_READ | rnicsim_pkg::ACCESS_REMOTE_WRITE)) != 16'd0;
  assign rights_rw = (c_rights & rnicsim_pkg::ACCESS_REMOTE_WRITE) != 16'd0;
  assign rights_lw = (c_rights & rnicsim_pkg::ACCESS_LOCAL_WRITE) != 16'd0;

  // ---------------------------------------------------------------------------------------
  // Local access (check_local_access): list c_checks, LOCAL_PROTECTION. Source and
  // ReceiveSge hold one rule each (R5.write.source, R5.recv.key) that every check names.
  logic        la_fail;
  logic [3:0]  la_k;
  logic [15:0] la_write, la_sink;
  assign la_write = c_access & rnicsim_pkg::ACCESS_LOCAL_WRITE;
  assign la_sink = c_access & rnicsim_pkg::ACCESS_READ_SINK;
  always_comb begin
    la_fail = 1'b1;
    la_k = 4'd0;
    if (!e0_region || e0_tag != tok_tag || !e0_valid)
      la_k = 4'd0;                                       // R5.read.sink.valid
    else if (!mut[2] && e0_pd != c_pd)
      la_k = 4'd1;                                       // R5.read.sink.pd
    else if ((e0_access & la_write) != la_write)
      la_k = 4'd2;                                       // R5.read.sink.local_write
    else if (!range_inside(c_va, c_len, e0_base, e0_len, mut[1]))
      la_k = 4'd3;                                       // R5.read.sink.bounds
    else if ((e0_access & la_sink) != la_sink)
      la_k = 4'd4;                                       // R5.read.sink.read_sink
    else
      la_fail = 1'b0;
  end

  // ---------------------------------------------------------------------------------------
  // Remote access (check_remote_access): list RemoteWrite when remote write is asked, else
  // RemoteRead (R5.write.* / R5.read.resp.*), REMOTE_ACCESS.
  logic [2:0]  rm_list;
  logic        rm_fail, rm_zb;
  logic [3:0]  rm_k;
  logic [64:0] rm_sum;
  logic [63:0] rm_va, rm_len;
  assign rm_list = ask_remote_write ? LIST_REMOTE_WRITE : LIST_REMOTE_READ;
  assign rm_zb = e0_mw && e0_zb != 8'd0;                 // zero-based window: va is an offset
  assign rm_sum = {1'b0, c_va} + {1'b0, e0_base};      // carry: va > UINT64_MAX - base_va
  assign rm_va = rm_zb ? rm_sum[63:0] : c_va;
  assign rm_len = (mut[7] && c_len != 64'd0) ? c_len - 64'd1 : c_len;
  always_comb begin
    rm_fail = 1'b1;
    rm_k = 4'd0;
    if (e0_state == rnicsim_pkg::STATE_UNUSED || e0_kind == rnicsim_pkg::KIND_NONE)
      rm_k = 4'd0;                                       // R5.read.resp.index
    else if (!mut[3] && e0_tag != tok_tag)
      rm_k = 4'd1;                                       // R5.read.resp.tag
    else if (!e0_valid)
      rm_k = 4'd2;                                       // R5.read.resp.valid
    else if (!mut[4] && e0_pd != c_pd)
      rm_k = 4'd3;                                       // R5.read.resp.pd
    else if (!mut[5] && e0_mw && e0_qpn != c_qpn)
      rm_k = 4'd4;                                       // R5.read.resp.window_qp
    else if (!mut[6] && (e0_access & c_access) != c_access)
      rm_k = 4'd5;                                       // R5.read.resp.rights
    else if ((rm_zb && rm_sum[64]) || !range_inside(rm_va, rm_len, e0_base, e0_len, 1'b0))
      rm_k = 4'd6;                                       // R5.read.resp.bounds
    else if (e0_mw && !(c_line1_present && e1_valid))
      rm_k = 4'd2;                                       // R5.read.resp.valid (the parent MR)
    else
      rm_fail = 1'b0;
  end

  // ---------------------------------------------------------------------------------------
  // Bind (apply_bind): line0 the window, line1 the MR; MW_BIND.
  logic        bd_fail;
  logic [3:0]  bd_k;
  always_comb begin
    bd_fail = 1'b1;
    bd_k = 4'd0;
    if (rights_rw && (e1_access & rnicsim_pkg::ACCESS_LOCAL_WRITE) == 16'd0)
      bd_k = 4'd0;                                       // R5.bind.remote_write_local_write
    else if (!e0_mw || (!mut[8] && !e0_free))
      bd_k = 4'd1;                                       // R5.bind.rebind
    else if (!e1_region || e1_tag != mr_tok_tag || !e1_valid)
      bd_k = 4'd2;                                       // R5.bind.mr_valid
    else if (e0_pd != c_pd || e1_pd != c_pd)
      bd_k = 4'd3;                                       // R5.bind.pd
    else if (!mut[9] && c_va == 64'd0)
      bd_k = 4'd4;                                       // R5.bind.va_zero
    else if (!range_inside(c_va, c_len, e1_base, e1_len, 1'b0))
      bd_k = 4'd5;                                       // R5.bind.range
    else if (!rights_remote)
      bd_k = 4'd6;                                       // R5.bind.rights_required
    else
      bd_fail = 1'b0;
  end

  // ---------------------------------------------------------------------------------------
  // Fast-register check (check_fast_register, 4096-byte pages): LOCAL_PROTECTION.
  logic        fr_fail;
  logic [3:0]  fr_k;
  logic [63:0] fr_room;   // page_count x 4096 - fbo (fbo < 4096 once R5.fr.fbo passed)
  assign fr_room = {20'd0, c_page_count, 12'd0} - {32'd0, c_fbo};
  always_comb begin
    fr_fail = 1'b1;
    fr_k = 4'd0;
    if (e0_fast && e0_cap != 32'd0 && rights_remote &&
        (e0_access & rnicsim_pkg::ACCESS_REMOTE_ALLOWED) == 16'd0)
      fr_k = 4'd0;                                       // R4.inline.fr_remote_access
    else if (!e0_fast)
      fr_k = 4'd1;                                       // R5.fr.kind
    else if (!e0_free)
      fr_k = 4'd2;                                       // R5.fr.free
    else if (e0_pd != c_pd)
      fr_k = 4'd3;                                       // R5.fr.pd
    else if (c_page_count == 32'd0 || (!mut[10] && c_page_count > e0_cap))
      fr_k = 4'd4;                                       // R5.fr.capacity
    else if (c_fbo[31:12] != 20'd0 || {20'd0, c_va[11:0]} != c_fbo)
      fr_k = 4'd5;                                       // R5.fr.fbo (R5.fr.va_zero)
    else if (c_len > fr_room)
      fr_k = 4'd6;                                       // R5.fr.length
    else if (rights_rw && !rights_lw)
      fr_k = 4'd7;                                       // R2.remote_write_implies_local
    else
      fr_fail = 1'b0;
  end

  // ---------------------------------------------------------------------------------------
  // Invalidate (apply_invalidate): LOCAL_PROTECTION.
  logic        iv_fail;
  logic [3:0]  iv_k;
  always_comb begin
    iv_fail = 1'b1;
    iv_k = 4'd0;
    if (!e0_fast && !e0_mw)
      iv_k = 4'd0;                                       // R5.inv.normal_mr
    else if (!e0_valid)
      iv_k = 4'd1;                                       // R5.inv.valid
    else if (!mut[12] && !c_by_object && e0_tag != tok_tag)
      iv_k = 4'd2;                                       // R5.inv.token
    else if (!mut[11] && e0_fast && e0_bw != 32'd0)
      iv_k = 4'd3;                                       // R5.inv.bound_windows
    else if (e0_pd != c_pd || (e0_mw && e0_qpn != c_qpn))
      iv_k = 4'd4;                                       // R5.inv.pd_qp
    else
      iv_fail = 1'b0;
  end

  // ---------------------------------------------------------------------------------------
  // The updated entries. line0: the window after a Bind, the MR after a FastRegister commit,
  // the object after an Invalidate, the parent MR a window left. line1: the MR of a Bind.
  logic [7:0]  o0_state, o0_tag, o0_shift, o0_zb;
  logic [15:0] o0_access;
  logic [31:0] o0_qpn, o0_parent, o0_bw;
  logic [63:0] o0_base, o0_len;
  always_comb begin
    o0_state = e0_state;
    o0_tag = e0_tag;
    o0_shift = e0_shift;
    o0_zb = e0_zb;
    o0_access = e0_access;
    o0_qpn = e0_qpn;
    o0_parent = e0_parent;
    o0_bw = e0_bw;
    o0_base = e0_base;
    o0_len = e0_len;
    case (c_op)
      rnicsim_pkg::OP_BIND: begin                        // R5.bind.token_on_return
        o0_state = rnicsim_pkg::STATE_VALID;
        o0_tag = tok_tag;                                // the consumer's new tag
        o0_base = c_va;
        o0_len = c_len;
        o0_access = c_rights;                          // R5.bind.window_rights
        o0_qpn = c_qpn;
        o0_parent = c_index1;
        o0_zb = {7'd0, c_zero_based};                  // R5.bind.zero_based
      end
      rnicsim_pkg::OP_FR_COMMIT: begin                   // R5.fr.success, R5.fr.rights
        o0_state = rnicsim_pkg::STATE_VALID;
        o0_tag = tok_tag;
        o0_base = c_va;
        o0_len = c_len;
        o0_shift = 8'd12;
        o0_access = (e0_access & rnicsim_pkg::ACCESS_REMOTE_ALLOWED) | c_rights;
        o0_bw = 32'd0;
      end
      rnicsim_pkg::OP_INVALIDATE: o0_state = rnicsim_pkg::STATE_FREE;   // R5.inv.success
      rnicsim_pkg::OP_RELEASE_WINDOW: if (e0_bw != 32'd0) o0_bw = e0_bw - 32'd1;
      default: ;
    endcase
  end

  assign out_line0 = {o0_bw, o0_parent, o0_qpn, e0_cap, o0_len, o0_base, e0_mtt, e0_pd,
                      8'd0, o0_zb, o0_shift, o0_tag, o0_access, e0_kind, o0_state};
  assign out_line1 = {e1_bw + 32'd1, e1_parent, e1_qpn, e1_cap, e1_len, e1_base, e1_mtt, e1_pd,
                      8'd0, e1_zb, e1_shift, e1_tag, e1_access, e1_kind, e1_state};

  // ---------------------------------------------------------------------------------------
  // The answer: status and rule of the first failing check, else the success and what it
  // defines.
  always_comb begin
    d_status = rnicsim_pkg::STATUS_SUCCESS;
    d_rule = rnicsim_pkg::RULE_NONE;
    d_target_va = 64'd0;
    d_mtt = 32'd0;
    d_shift = 8'd0;
    d_page_base = 64'd0;
    d_new_token = 32'd0;
    d_write0 = 1'b0;
    d_write1 = 1'b0;
    case (c_op)
      rnicsim_pkg::OP_LOCAL_ACCESS:
        if (la_fail) begin
          d_status = rnicsim_pkg::STATUS_LOCAL_PROTECTION;
          d_rule = check_rule(c_checks, la_k);
        end else begin                                   // region_of(entry), the va
          d_target_va = c_va;
          d_mtt = e0_mtt;
          d_shift = e0_shift;
          d_page_base = page_base(e0_base, e0_shift[5:0]);
        end
      rnicsim_pkg::OP_REMOTE_ACCESS:
        if (rm_fail) begin
          d_status = rnicsim_pkg::STATUS_REMOTE_ACCESS;
          d_rule = check_rule(rm_list, rm_k);
        end else begin                                   // a window's region is its MR's
          d_target_va = rm_va;
          d_mtt = e0_mw ? e1_mtt : e0_mtt;
          d_shift = e0_mw ? e1_shift : e0_shift;
          d_page_base = e0_mw ? page_base(e1_base, e1_shift[5:0])
                              : page_base(e0_base, e0_shift[5:0]);
        end
      rnicsim_pkg::OP_BIND:
        if (bd_fail) begin
          d_status = rnicsim_pkg::STATUS_MW_BIND;
          d_rule = check_rule(LIST_BIND, bd_k);
        end else begin                                   // R5.bind.token_on_return
          d_rule = rnicsim_pkg::RULE_R5_bind_token_on_return;
          d_new_token = {c_index0[23:0], tok_tag};     // make_token(mw index, new tag)
          d_write0 = 1'b1;
          d_write1 = 1'b1;                               // the MR: one more bound window
        end
      rnicsim_pkg::OP_FR_CHECK:
        if (fr_fail) begin
          d_status = rnicsim_pkg::STATUS_LOCAL_PROTECTION;
          d_rule = check_rule(LIST_FAST_REGISTER, fr_k);
        end else begin                                   // R5.fr.success: the MR's MTT range
          d_rule = rnicsim_pkg::RULE_R5_fr_success;
          d_mtt = e0_mtt;
          d_shift = 8'd12;
        end
      rnicsim_pkg::OP_FR_COMMIT: begin                   // R5.fr.success
        d_rule = rnicsim_pkg::RULE_R5_fr_success;
        d_write0 = 1'b1;
      end
      rnicsim_pkg::OP_INVALIDATE:
        if (iv_fail) begin
          d_status = rnicsim_pkg::STATUS_LOCAL_PROTECTION;
          d_rule = check_rule(LIST_INVALIDATE, iv_k);
        end else begin                                   // R5.inv.success
          d_rule = rnicsim_pkg::RULE_R5_inv_success;
          d_write0 = 1'b1;
        end
      rnicsim_pkg::OP_RELEASE_WINDOW: d_write0 = 1'b1;
      default: d_status = rnicsim_pkg::STATUS_LOCAL_QP_OPERATION;   // no such op
    endcase
  end

endmodule

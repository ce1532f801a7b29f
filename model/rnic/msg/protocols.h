// SPDX-License-Identifier: Apache-2.0
// The device's unit protocols: one per kind of link between units that is not memory-mapped
// (tlm/protocol.h says what a protocol is). A socket names its protocol in its type, so a check
// socket bound to a translation socket, or a doorbell to a completion port, fails to compile;
// the target learns who called from the socket (its `caller` index, in binding order), never
// from a message field. Generic payloads stay on the PCIe side: MMIO into the BAR, the device's
// DMA (DmaExtension, msg/dma.h) and interrupt messages.
//
// Each target method has the shape `void op(int caller, Message& message, sc_time& delay)`:
// the answer is written into the message, `delay` grows to when the answer holds (loosely
// timed, IEEE 1666-2011 clause 11.1.2).
#pragma once

#include <systemc>

#include "model/rnic/msg/context.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/net/packet.h"
#include "tlm/protocol.h"

namespace rnic {

// Doorbells -> WqeFetcher (send queues), Responder (receive queues): a producer index written.
struct DoorbellProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = DoorbellProtocol;
    virtual void ring(Doorbell& doorbell, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void ring(Doorbell& m, sc_core::sc_time& d) override { this->target->ring(this->caller, m, d); }
  };
};

// Doorbells -> CompletionEngine: CQ consumer indices (and arming), the interrupt address.
struct CompletionControlProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = CompletionControlProtocol;
    virtual void ring(Doorbell& doorbell, sc_core::sc_time& delay) = 0;
    virtual void set_interrupt_vector(InterruptVector& vector, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void ring(Doorbell& m, sc_core::sc_time& d) override { this->target->ring(this->caller, m, d); }
    void set_interrupt_vector(InterruptVector& m, sc_core::sc_time& d) override {
      this->target->set_interrupt_vector(this->caller, m, d);
    }
  };
};

// Doorbells -> every unit caching a table: the driver changed these entries.
struct ContextChangeProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = ContextChangeProtocol;
    virtual void context_changed(ContextChange& change, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void context_changed(ContextChange& m, sc_core::sc_time& d) override {
      this->target->context_changed(this->caller, m, d);
    }
  };
};

// WqeFetcher, Responder, CompletionEngine -> QpContext: a QP or CQ context, copied out.
struct ContextLookupProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = ContextLookupProtocol;
    virtual void lookup(ContextRead& read, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void lookup(ContextRead& m, sc_core::sc_time& d) override {
      this->target->lookup(this->caller, m, d);
    }
  };
};

// WqeFetcher -> Requester: a decoded WQE (or a QP's close marker), taken or refused.
struct WorkProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = WorkProtocol;
    virtual void work(WorkRequest& work, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void work(WorkRequest& m, sc_core::sc_time& d) override {
      this->target->work(this->caller, m, d);
    }
  };
};

// Requester -> WqeFetcher: a QP that refused a WQE can take it now.
struct ReadyProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = ReadyProtocol;
    virtual void ready(SendQueueReady& ready, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void ready(SendQueueReady& m, sc_core::sc_time& d) override {
      this->target->ready(this->caller, m, d);
    }
  };
};

// Requester <-> Responder of one device: the QP went to the error state.
struct QpEventProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = QpEventProtocol;
    virtual void qp_error(QpErrorEvent& event, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void qp_error(QpErrorEvent& m, sc_core::sc_time& d) override {
      this->target->qp_error(this->caller, m, d);
    }
  };
};

// Requester, Responder -> ProtectionChecker: one decision (status and rule in the request).
struct ProtectionProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = ProtectionProtocol;
    virtual void check(ProtectionRequest& request, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void check(ProtectionRequest& m, sc_core::sc_time& d) override {
      this->target->check(this->caller, m, d);
    }
  };
};

// Requester, Responder -> Mtt: a range to physical segments; a fast-register's page list.
struct TranslationProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = TranslationProtocol;
    virtual void translate(TranslateRequest& request, sc_core::sc_time& delay) = 0;
    virtual void load_page_list(PageListLoad& load, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void translate(TranslateRequest& m, sc_core::sc_time& d) override {
      this->target->translate(this->caller, m, d);
    }
    void load_page_list(PageListLoad& m, sc_core::sc_time& d) override {
      this->target->load_page_list(this->caller, m, d);
    }
  };
};

// Requester, Responder, DmaBench -> DmaReadEngine, DmaWriteEngine: move a request's data
// between host segments and the device (the engines issue the DMA on the PCIe side).
struct DataMoveProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = DataMoveProtocol;
    virtual void move(DmaRequest& request, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void move(DmaRequest& m, sc_core::sc_time& d) override {
      this->target->move(this->caller, m, d);
    }
  };
};

// Requester, Responder -> CompletionEngine: a completion to write to its CQ.
struct CompletionProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = CompletionProtocol;
    virtual void complete(CompletionRecord& record, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void complete(CompletionRecord& m, sc_core::sc_time& d) override {
      this->target->complete(this->caller, m, d);
    }
  };
};

// On chip: Requester, Responder -> Port (to send); Port -> Responder (requests received),
// Requester (responses received).
struct PacketProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = PacketProtocol;
    virtual void packet(Packet& packet, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void packet(Packet& m, sc_core::sc_time& d) override {
      this->target->packet(this->caller, m, d);
    }
  };
};

// Off chip: a node's Port <-> the fabric (Switch), a packet on the wire.
struct WireProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = WireProtocol;
    virtual void frame(Packet& packet, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void frame(Packet& m, sc_core::sc_time& d) override {
      this->target->frame(this->caller, m, d);
    }
  };
};

}  // namespace rnic

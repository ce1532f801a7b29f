// SPDX-License-Identifier: Apache-2.0
// NDK-style types and constants. Values are those of the public ndkpi.h / NTSTATUS headers
// (docs/behaviour.md: Flags, Status values, Posting rules); names keep the NDK spelling so users
// recognise them.
#pragma once

#include <cstdint>
#include <string>

namespace rnic::ndk {

using NTSTATUS = uint32_t;

constexpr NTSTATUS STATUS_SUCCESS = 0x00000000;
constexpr NTSTATUS STATUS_PENDING = 0x00000103;
constexpr NTSTATUS STATUS_CANCELLED = 0xC0000120;
constexpr NTSTATUS STATUS_ACCESS_VIOLATION = 0xC0000005;
constexpr NTSTATUS STATUS_DATA_OVERRUN = 0xC000003C;
constexpr NTSTATUS STATUS_DATA_ERROR = 0xC000003E;
constexpr NTSTATUS STATUS_REMOTE_RESOURCES = 0xC000013D;
constexpr NTSTATUS STATUS_IO_TIMEOUT = 0xC00000B5;
constexpr NTSTATUS STATUS_INTERNAL_ERROR = 0xC00000E5;
constexpr NTSTATUS STATUS_CONNECTION_INVALID = 0xC000023A;
constexpr NTSTATUS STATUS_INVALID_PARAMETER = 0xC000000D;
constexpr NTSTATUS STATUS_INSUFFICIENT_RESOURCES = 0xC000009A;
constexpr NTSTATUS STATUS_DEVICE_BUSY = 0x80000011;
constexpr NTSTATUS STATUS_IMPLEMENTATION_LIMIT = 0xC000042B;

// "STATUS_ACCESS_VIOLATION" <-> value. Unknown names return false / "0x........".
bool status_from_name(const std::string& name, NTSTATUS* out);
std::string status_name(NTSTATUS status);

// NDK_OP_FLAG_*
constexpr uint32_t NDK_OP_FLAG_SILENT_SUCCESS = 0x001;
constexpr uint32_t NDK_OP_FLAG_READ_FENCE = 0x002;
constexpr uint32_t NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT = 0x004;
constexpr uint32_t NDK_OP_FLAG_ALLOW_REMOTE_READ = 0x008;
constexpr uint32_t NDK_OP_FLAG_ALLOW_LOCAL_WRITE = 0x010;
constexpr uint32_t NDK_OP_FLAG_ALLOW_REMOTE_WRITE = 0x030;  // contains LOCAL_WRITE
constexpr uint32_t NDK_OP_FLAG_INLINE = 0x040;
constexpr uint32_t NDK_OP_FLAG_RDMA_READ_SINK = 0x080;
constexpr uint32_t NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE = 0x100;
constexpr uint32_t NDK_OP_FLAG_DEFER = 0x200;

// NDK_MR_FLAG_*
constexpr uint32_t NDK_MR_FLAG_ALLOW_LOCAL_READ = 0;  // always granted
constexpr uint32_t NDK_MR_FLAG_ALLOW_LOCAL_WRITE = 1;
constexpr uint32_t NDK_MR_FLAG_ALLOW_REMOTE_READ = 2;
constexpr uint32_t NDK_MR_FLAG_ALLOW_REMOTE_WRITE = 5;  // 4 | LOCAL_WRITE
constexpr uint32_t NDK_MR_FLAG_RDMA_READ_SINK = 8;

// Adapter capability flags (NDK_ADAPTER_FLAG_*)
constexpr uint32_t NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED = 0x1;
constexpr uint32_t NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED = 0x2;
constexpr uint32_t NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED = 0x4;
constexpr uint32_t NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED = 0x8;
constexpr uint32_t NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED = 0x10;
constexpr uint32_t NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED = 0x100;
constexpr uint32_t NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED = 0x10000;

// NDK_OPERATION_TYPE (the Type field of a completion)
enum NdkOperationType : uint32_t {
  NdkOperationTypeReceive = 1,
  NdkOperationTypeSend = 2,
  NdkOperationTypeFastRegister = 4,
  NdkOperationTypeBind = 8,
  NdkOperationTypeInvalidate = 16,
  NdkOperationTypeRead = 32,
  NdkOperationTypeWrite = 64,
  NdkOperationTypeReceiveAndInvalidate = 0x8001,
};
// "Read" <-> 32 (names without the NdkOperationType prefix).
bool operation_type_from_name(const std::string& name, uint32_t* out);
std::string operation_type_name(uint32_t type);

// Flag names without prefix ("ALLOW_REMOTE_READ") -> value; false when unknown.
bool op_flag_from_name(const std::string& name, uint32_t* out);
bool mr_flag_from_name(const std::string& name, uint32_t* out);

// NDK_RESULT_EX
struct NDK_RESULT_EX {
  NTSTATUS Status = STATUS_SUCCESS;
  uint32_t BytesTransferred = 0;
  uint64_t QPContext = 0;
  uint64_t RequestContext = 0;
  uint32_t Type = 0;
  uint64_t TypeSpecific = 0;
};

// NDK_ADAPTER_INFO (the fields the model reports)
struct NDK_ADAPTER_INFO {
  uint32_t VendorId = 0x15b3;
  uint32_t DeviceId = 0x1017;
  uint64_t MaxRegistrationSize = 0;
  uint64_t MaxWindowSize = 0;
  uint32_t FRMRPageCount = 0;
  uint32_t MaxInitiatorSge = 0;
  uint32_t MaxReceiveSge = 0;
  uint32_t MaxReadSge = 0;
  uint32_t MaxTransferLength = 0;
  uint32_t MaxInboundReadLimit = 0;   // IRD
  uint32_t MaxOutboundReadLimit = 0;  // ORD
  uint32_t MaxReceiveQueueDepth = 0;
  uint32_t MaxInitiatorQueueDepth = 0;
  uint32_t MaxCqDepth = 0;
  uint32_t LargeRequestThreshold = 0;
  uint32_t MaxInlineDataSize = 0;  // INLINE payload limit (bytes)
  uint32_t AdapterFlags = 0;
};

// The user-mode Bind's memory-window descriptor (ND_MW_DESCRIPTOR, INDEndpoint::Bind): the
// peer addresses the window by offsets from Base (0: zero-based) up to Length.
struct ND_MW_DESCRIPTOR {
  uint64_t Base = 0;
  uint64_t Length = 0;
  uint32_t Token = 0;
};

// NDK_SGE: a local buffer named by a local token.
struct NDK_SGE {
  uint64_t Buffer = 0;  // virtual address
  uint32_t BufferLength = 0;
  uint32_t MemoryRegionToken = 0;
};

}  // namespace rnic::ndk

// SPDX-License-Identifier: Apache-2.0
#include "host_api/ndk.h"

#include <cstdio>
#include <utility>

namespace rnic::ndk {

namespace {
template <size_t N>
bool lookup(const std::pair<const char*, uint32_t> (&table)[N], const std::string& name,
            uint32_t* out) {
  for (const auto& entry : table) {
    if (name == entry.first) {
      *out = entry.second;
      return true;
    }
  }
  return false;
}

const std::pair<const char*, uint32_t> kStatuses[] = {
    {"STATUS_SUCCESS", STATUS_SUCCESS},
    {"STATUS_PENDING", STATUS_PENDING},
    {"STATUS_CANCELLED", STATUS_CANCELLED},
    {"STATUS_ACCESS_VIOLATION", STATUS_ACCESS_VIOLATION},
    {"STATUS_DATA_OVERRUN", STATUS_DATA_OVERRUN},
    {"STATUS_DATA_ERROR", STATUS_DATA_ERROR},
    {"STATUS_REMOTE_RESOURCES", STATUS_REMOTE_RESOURCES},
    {"STATUS_IO_TIMEOUT", STATUS_IO_TIMEOUT},
    {"STATUS_INTERNAL_ERROR", STATUS_INTERNAL_ERROR},
    {"STATUS_CONNECTION_INVALID", STATUS_CONNECTION_INVALID},
    {"STATUS_INVALID_PARAMETER", STATUS_INVALID_PARAMETER},
    {"STATUS_INSUFFICIENT_RESOURCES", STATUS_INSUFFICIENT_RESOURCES},
    {"STATUS_DEVICE_BUSY", STATUS_DEVICE_BUSY},
    {"STATUS_IMPLEMENTATION_LIMIT", STATUS_IMPLEMENTATION_LIMIT},
};

const std::pair<const char*, uint32_t> kOperationTypes[] = {
    {"Receive", NdkOperationTypeReceive},
    {"Send", NdkOperationTypeSend},
    {"FastRegister", NdkOperationTypeFastRegister},
    {"Bind", NdkOperationTypeBind},
    {"Invalidate", NdkOperationTypeInvalidate},
    {"Read", NdkOperationTypeRead},
    {"Write", NdkOperationTypeWrite},
    {"ReceiveAndInvalidate", NdkOperationTypeReceiveAndInvalidate},
};

const std::pair<const char*, uint32_t> kOpFlags[] = {
    {"SILENT_SUCCESS", NDK_OP_FLAG_SILENT_SUCCESS},
    {"READ_FENCE", NDK_OP_FLAG_READ_FENCE},
    {"SEND_AND_SOLICIT_EVENT", NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT},
    {"ALLOW_REMOTE_READ", NDK_OP_FLAG_ALLOW_REMOTE_READ},
    {"ALLOW_LOCAL_WRITE", NDK_OP_FLAG_ALLOW_LOCAL_WRITE},
    {"ALLOW_REMOTE_WRITE", NDK_OP_FLAG_ALLOW_REMOTE_WRITE},
    {"INLINE", NDK_OP_FLAG_INLINE},
    {"RDMA_READ_SINK", NDK_OP_FLAG_RDMA_READ_SINK},
    {"RDMA_READ_LOCAL_INVALIDATE", NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE},
    {"DEFER", NDK_OP_FLAG_DEFER},
};

const std::pair<const char*, uint32_t> kMrFlags[] = {
    {"ALLOW_LOCAL_READ", NDK_MR_FLAG_ALLOW_LOCAL_READ},
    {"ALLOW_LOCAL_WRITE", NDK_MR_FLAG_ALLOW_LOCAL_WRITE},
    {"ALLOW_REMOTE_READ", NDK_MR_FLAG_ALLOW_REMOTE_READ},
    {"ALLOW_REMOTE_WRITE", NDK_MR_FLAG_ALLOW_REMOTE_WRITE},
    {"RDMA_READ_SINK", NDK_MR_FLAG_RDMA_READ_SINK},
};
}  // namespace

bool status_from_name(const std::string& name, NTSTATUS* out) {
  return lookup(kStatuses, name, out);
}

std::string status_name(NTSTATUS status) {
  for (const auto& entry : kStatuses) {
    if (entry.second == status) return entry.first;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", status);
  return buf;
}

bool operation_type_from_name(const std::string& name, uint32_t* out) {
  return lookup(kOperationTypes, name, out);
}

std::string operation_type_name(uint32_t type) {
  for (const auto& entry : kOperationTypes) {
    if (entry.second == type) return entry.first;
  }
  return "Unknown(" + std::to_string(type) + ")";
}

bool op_flag_from_name(const std::string& name, uint32_t* out) {
  return lookup(kOpFlags, name, out);
}

bool mr_flag_from_name(const std::string& name, uint32_t* out) {
  return lookup(kMrFlags, name, out);
}

}  // namespace rnic::ndk

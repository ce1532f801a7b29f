// SPDX-License-Identifier: Apache-2.0
// Asynchronous control calls: the driver checks the call inline, returns STATUS_PENDING and
// runs the device commands in a thread of their own (R3.pending).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "host_api/adapter.h"
#include "host_api/adapter_impl.h"

namespace rnic::host {

NTSTATUS Adapter::start_async(MrHandle mr, std::function<void()> commit, AsyncRequest* async) {
  async->done = false;
  async->status = ndk::STATUS_PENDING;
  impl_->mrs[mr].pending = true;
  Impl* impl = impl_.get();
  sc_core::sc_spawn_options options;
  sc_core::sc_spawn(
      [impl, mr, commit, async] {
        commit();
        impl->mrs[mr].pending = false;
        async->status = ndk::STATUS_SUCCESS;
        async->done = true;
        async->completed.notify(sc_core::SC_ZERO_TIME);
      },
      sc_core::sc_gen_unique_name("async_call"), &options);
  return ndk::STATUS_PENDING;
}

}  // namespace rnic::host

// SPDX-License-Identifier: Apache-2.0
// Executors of the verbs beyond Read and Bind: fast-register, invalidate, write, send,
// receive, flush.
#include <vector>

#include "app/runner/context.h"

namespace rnic::app {

void exec_fast_register(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  const host::Buffer& buffer = ctx.object(step.buffer).buffer;
  const uint64_t offset = ctx.resolve(step.offset);
  const uint64_t length = ctx.resolve(step.length);
  // The page array is built from the buffer's 4 KiB pages; FBO is the offset in the first.
  std::vector<uint64_t> pages = buffer.page_array(offset, length);
  if (!step.page_list.empty()) {
    // An explicit page array: each entry a 4 KiB page of a buffer, plus a byte offset.
    pages.clear();
    for (const PageSpec& spec : step.page_list) {
      const host::Buffer& b = ctx.object(spec.buffer).buffer;
      const uint64_t index = ctx.resolve(spec.index);
      if (index >= (b.size + 4095) / 4096)
        throw StepInvalid(spec.index.path, "page " + std::to_string(index) + " is outside buffer " +
                                               spec.buffer);
      pages.push_back(b.phys(index * 4096) + ctx.resolve(spec.offset));
    }
  }
  const uint32_t count =
      step.page_count ? ctx.resolve32(*step.page_count) : uint32_t(pages.size());
  // The array handed over has `count` entries: a referenced count is bounded as a literal is.
  if (count > kMaxFrPagesField)
    throw StepInvalid(step.page_count->path,
                      "page_count " + std::to_string(count) + " is above the scenario limit of " +
                          std::to_string(kMaxFrPagesField));
  // A page_count override past the buffer (a negative test) repeats the last page.
  while (pages.size() < count) pages.push_back(pages.empty() ? 0 : pages.back());
  const uint64_t base_va = step.base_va ? ctx.resolve(*step.base_va) : buffer.va + offset;
  const uint32_t status =
      a.NdkFastRegister(ctx.handle(step.qp), ctx.resolve(step.context), ctx.handle(step.mr),
                        count, pages.data(), uint32_t(offset % 4096), length, base_va, step.flags);
  ctx.check_status(step, status, a, result);
}

void exec_invalidate(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  const uint32_t status = a.NdkInvalidate(ctx.handle(step.qp), ctx.resolve(step.context),
                                          ctx.handle(step.target), step.flags);
  ctx.check_status(step, status, a, result);
}

void exec_write(RunContext& ctx, const Step& step, StepResult& result) {
  exec_rdma(ctx, step, result, true);
}

void exec_send(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  const std::vector<ndk::NDK_SGE> sgl = build_sgl(ctx, step);
  const ndk::NDK_SGE* list = sgl.empty() ? nullptr : sgl.data();
  const uint32_t status =
      step.invalidate_token
          ? a.NdkSendAndInvalidate(ctx.handle(step.qp), ctx.resolve(step.context), list,
                                   uint32_t(sgl.size()), ctx.resolve32(*step.invalidate_token),
                                   step.flags)
          : a.NdkSend(ctx.handle(step.qp), ctx.resolve(step.context), list, uint32_t(sgl.size()),
                      step.flags);
  ctx.check_status(step, status, a, result);
}

void exec_receive(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  const std::vector<ndk::NDK_SGE> sgl = build_sgl(ctx, step);
  const uint32_t status = a.NdkReceive(ctx.handle(step.qp), ctx.resolve(step.context),
                                       sgl.empty() ? nullptr : sgl.data(), uint32_t(sgl.size()));
  ctx.check_status(step, status, a, result);
}

void exec_flush(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  ctx.check_status(step, a.NdkFlush(ctx.handle(step.qp)), a, result);
}

}  // namespace rnic::app

// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/translation/page_walk.h"

namespace rnic {

bool PageWalk::begin(uint32_t mtt_index, uint8_t page_shift, uint64_t page_base_va, uint64_t va,
                     uint64_t length) {
  pages_ = 0;
  if (page_shift < 12 || page_shift > 30 || va < page_base_va) return false;
  if (length == 0) return true;
  if (length > UINT64_MAX - va) return false;
  const uint64_t first_page = (va - page_base_va) >> page_shift;
  const uint64_t last_page = (va + length - 1 - page_base_va) >> page_shift;
  if (last_page > UINT32_MAX - mtt_index) return false;
  page_mask_ = (uint64_t(1) << page_shift) - 1;
  pages_ = last_page - first_page + 1;
  entry_ = mtt_index + first_page;
  va_ = va;
  remaining_ = length;
  return true;
}

}  // namespace rnic

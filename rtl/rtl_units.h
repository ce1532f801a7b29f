// SPDX-License-Identifier: Apache-2.0
// The RTL units of this build, for app::register_rtl_units() (rnicsim's main() calls it when
// built with RNICSIM_RTL).
#pragma once

#include <cstdint>

#include "app/runner/rtl_units.h"

namespace rnic::rtl {

// `mutant`: the seeded bug of a mutant build (rnicsim_rtl_mutants), 0 for none.
app::RtlUnits units(uint32_t mutant = 0);

}  // namespace rnic::rtl

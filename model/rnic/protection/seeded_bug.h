// SPDX-License-Identifier: Apache-2.0
// Rules broken on purpose, to show that the protection monitor catches what they let through
// (docs/validation.md, "The protection monitor"). Only the test executable rnicsim_seeded_bugs
// compiles the units that use this with RNICSIM_SEEDED_BUGS (and picks the bug at run time:
// RNICSIM_SEEDED_BUG); in every other build a hook is the constant false and costs nothing.
#pragma once

#ifdef RNICSIM_SEEDED_BUGS

namespace rnic {

enum class SeededBug { None, Direction, Pd, WrongRegion, StaleTag, Bounds };
// The bug this run breaks (tests/tools/rnicsim_seeded_bugs.cpp).
SeededBug seeded_bug();

}  // namespace rnic

#define RNICSIM_SEEDED_BUG(name) (::rnic::seeded_bug() == ::rnic::SeededBug::name)

#else

#define RNICSIM_SEEDED_BUG(name) false

#endif

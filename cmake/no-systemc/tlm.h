// SPDX-License-Identifier: Apache-2.0
// Stands in front of SystemC for the targets that must not use it (cmake/RnicsimTargets.cmake).
#error "this target is plain C++: it must not include SystemC (<tlm.h>)"

# SPDX-License-Identifier: Apache-2.0
# Helpers for the layer CMakeLists: warnings, and the guard of the plain-C++ targets.

# -Wall -Wextra on a target's own sources (-Werror with RNICSIM_WERROR).
function(rnicsim_warnings target)
  target_compile_options(${target} PRIVATE ${RNICSIM_WARNINGS})
endfunction()

# A target that must build without SystemC (the ABI codecs, the NDK constants, the scenario
# loader, the reference model, the generator): cmake/no-systemc comes first on its include
# path, so an #include <systemc> or <tlm> anywhere in its sources or their headers stops the
# build with an #error; and it links no SystemC target (its tests link it alone).
function(rnicsim_plain_cxx target)
  target_include_directories(${target} BEFORE PRIVATE ${PROJECT_SOURCE_DIR}/cmake/no-systemc)
  rnicsim_warnings(${target})
endfunction()

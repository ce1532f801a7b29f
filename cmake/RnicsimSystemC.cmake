# SPDX-License-Identifier: Apache-2.0
# Finds SystemC and provides the target rnicsim::systemc. Used by the build (CMakeLists.txt) and
# by the installed package (rnicsimConfig.cmake), so both find the same SystemC the same way:
#   1. a SystemCLanguage CMake package (SystemC built from source with CMake);
#   2. SYSTEMC_HOME (the environment, else RNICSIM_SYSTEMC_HOME_HINT: the one rnicsim was
#      built with), holding include/systemc.h and lib/ or lib-linux64/libsystemc;
#   3. pkg-config `systemc` (Debian's libsystemc-dev ships systemc.pc and no CMake package).
# Sets RNICSIM_SYSTEMC_FOUND, and RNICSIM_SYSTEMC_VIA (package|home|pkg-config) and, for the
# home case, RNICSIM_SYSTEMC_HOME. Include directories of an imported target are SYSTEM ones:
# SystemC's headers are not -Wextra clean.
if(TARGET rnicsim::systemc)
  set(RNICSIM_SYSTEMC_FOUND TRUE)
  return()
endif()
set(RNICSIM_SYSTEMC_FOUND FALSE)

find_package(SystemCLanguage CONFIG QUIET)
set(_rnicsim_sc_home "$ENV{SYSTEMC_HOME}")
if(NOT _rnicsim_sc_home AND RNICSIM_SYSTEMC_HOME_HINT)
  set(_rnicsim_sc_home "${RNICSIM_SYSTEMC_HOME_HINT}")
endif()

if(SystemCLanguage_FOUND)
  add_library(rnicsim::systemc INTERFACE IMPORTED GLOBAL)
  set_target_properties(rnicsim::systemc PROPERTIES INTERFACE_LINK_LIBRARIES SystemC::systemc)
  set(RNICSIM_SYSTEMC_VIA package)
elseif(_rnicsim_sc_home AND EXISTS "${_rnicsim_sc_home}/include/systemc.h")
  find_library(RNICSIM_SYSTEMC_LIBRARY systemc
    PATHS "${_rnicsim_sc_home}/lib" "${_rnicsim_sc_home}/lib-linux64" NO_DEFAULT_PATH)
  if(RNICSIM_SYSTEMC_LIBRARY)
    add_library(rnicsim::systemc INTERFACE IMPORTED GLOBAL)
    set_target_properties(rnicsim::systemc PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${_rnicsim_sc_home}/include"
      INTERFACE_LINK_LIBRARIES "${RNICSIM_SYSTEMC_LIBRARY}")
    set(RNICSIM_SYSTEMC_VIA home)
    set(RNICSIM_SYSTEMC_HOME "${_rnicsim_sc_home}")
  endif()
else()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(RNICSIM_SYSTEMC_PC QUIET IMPORTED_TARGET GLOBAL systemc)
  endif()
  if(RNICSIM_SYSTEMC_PC_FOUND)
    add_library(rnicsim::systemc INTERFACE IMPORTED GLOBAL)
    set_target_properties(rnicsim::systemc PROPERTIES
      INTERFACE_LINK_LIBRARIES PkgConfig::RNICSIM_SYSTEMC_PC)
    set(RNICSIM_SYSTEMC_VIA pkg-config)
  endif()
endif()
unset(_rnicsim_sc_home)

if(TARGET rnicsim::systemc)
  set(RNICSIM_SYSTEMC_FOUND TRUE)
endif()

# ctest rtl/package: TOOL (rnicsim_rtl_package) writes OUT, which must equal EXPECTED (the
# package kept in the tree, rtl/rnicsim_pkg.sv). To regenerate:
#   build/rnicsim_rtl_package rtl/rnicsim_pkg.sv   (the tool is built in build/rtl/)
execute_process(COMMAND ${TOOL} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rtl/package: ${TOOL} failed (${rc})")
endif()
file(READ ${OUT} got)
file(READ ${EXPECTED} want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "rtl/package: ${EXPECTED} is out of date: regenerate it with "
                      "rnicsim_rtl_package ${EXPECTED}")
endif()
message(STATUS "rtl/package: current")

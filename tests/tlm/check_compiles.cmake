# SPDX-License-Identifier: Apache-2.0
# cmake -DBUILD_DIR=... -DTARGET=... -DEXPECT=pass|fail -P check_compiles.cmake
# Builds TARGET of BUILD_DIR (a target left out of `all`) and fails unless the outcome is
# EXPECT; an expected failure must be a failure to bind (no other compile error).
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT STREQUAL "pass")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${TARGET} does not compile:\n${out}${err}")
  endif()
  message("compiles: PASS")
else()
  if(status EQUAL 0)
    message(FATAL_ERROR "${TARGET} compiled, but must not")
  endif()
  if(NOT "${out}${err}" MATCHES "no matching (member )?function for call to .*bind")
    message(FATAL_ERROR "${TARGET} failed to compile for another reason:\n${out}${err}")
  endif()
  message("refused at compile time: PASS")
endif()

# ctest rtl/equivalence-mutants: the equivalence bench (TOOL) must find every seeded bug of
# rtl/protection_checker/mutants.tsv (exit 1 with its first divergence), on its own seed.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../../rtl/protection_checker/mutants.tsv rows)
set(killed 0)
list(LENGTH rows total)
foreach(row ${rows})
  string(REGEX MATCH "^[0-9]+" mutant "${row}")
  execute_process(COMMAND ${TOOL} --count 200000 --seed 1 --mutant ${mutant}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 1)
    math(EXPR killed "${killed} + 1")
  else()
    message(SEND_ERROR "mutant ${mutant}: the bench exited ${rc}, not 1: ${out}${err}")
  endif()
endforeach()
message(STATUS "rtl/equivalence-mutants: ${killed} of ${total} seeded bugs found")
if(NOT killed EQUAL total)
  message(FATAL_ERROR "rtl/equivalence-mutants: FAIL")
endif()

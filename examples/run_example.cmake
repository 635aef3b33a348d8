# Runs PROG with ARGS (a list) and fails unless it exits 0 and its output contains EXPECT.
execute_process(COMMAND ${PROG} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} exited with '${rc}'")
endif()
string(FIND "${out}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PROG}: output lacks '${EXPECT}'")
endif()

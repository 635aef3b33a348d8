# Fails unless the shared libtoposched exports exactly the public API: every function its
# installed headers declare with TS_API, and nothing else (the core, the runtime's rt_*
# internals and the simulator stay hidden). Run by the test test_exports:
#   cmake -DNM=nm -DLIBRARY=libtoposched.so "-DHEADERS=runtime.h;version.h" \
#         -P cmake/check_exports.cmake
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/nm_symbols.cmake)

set(api "")
foreach(header ${HEADERS})
  file(READ "${header}" text)
  # TS_API <return type> <name>(  -- the declaration may continue on the next line.
  string(REGEX MATCHALL "TS_API[^;(]*[ *]ts_[a-z0-9_]+\\(" decls "${text}")
  foreach(d ${decls})
    string(REGEX REPLACE "^.*[ *](ts_[a-z0-9_]+)\\($" "\\1" name "${d}")
    list(APPEND api ${name})
  endforeach()
endforeach()
list(LENGTH api nr_api)
if(nr_api EQUAL 0)
  message(FATAL_ERROR "check_exports: no TS_API declaration in ${HEADERS}")
endif()

ts_nm_defined(exported "${LIBRARY}" -D)
set(problems "")
foreach(sym ${exported})
  if(NOT sym MATCHES "^ts_")
    string(APPEND problems "\n  exported, not ts_: ${sym}")
  elseif(NOT sym IN_LIST api)
    string(APPEND problems "\n  exported, not in the public headers: ${sym}")
  endif()
endforeach()
foreach(name ${api})
  if(NOT name IN_LIST exported)
    string(APPEND problems "\n  declared TS_API, not exported: ${name}")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${LIBRARY} does not export exactly the public API:${problems}")
endif()
message(STATUS "${LIBRARY}: exports the ${nr_api} functions of the public API, nothing else")

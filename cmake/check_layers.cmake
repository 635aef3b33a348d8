# Fails when a layer's archive uses a symbol that only a layer above it (or beside it:
# sim and rt are siblings) defines. Run by the ts_layer_check target on every build:
#   cmake -DNM=nm -DLAYERS="base;topo;core;sim;rt" -DARCHIVES="base=libts_base.a;..." -P
# Ranks: a layer may use only layers of a lower rank; sim and rt share one, and so do topo
# and workload (the rt-app reader, which uses base only and neither topo nor core).
include(${CMAKE_CURRENT_LIST_DIR}/nm_symbols.cmake)

set(rank_base 0)
set(rank_topo 1)
set(rank_workload 1)
set(rank_core 2)
set(rank_sim 3)
set(rank_rt 3)

foreach(entry ${ARCHIVES})
  string(REPLACE "=" ";" kv "${entry}")
  list(GET kv 0 layer)
  list(GET kv 1 archive)
  if(NOT DEFINED rank_${layer})
    message(FATAL_ERROR "check_layers: unknown layer '${layer}'")
  endif()
  set(archive_${layer} "${archive}")
  ts_nm_defined(defs "${archive}" -g)
  foreach(sym ${defs})
    set(owner_${sym} ${layer})
  endforeach()
endforeach()

set(violations "")
foreach(layer ${LAYERS})
  execute_process(COMMAND ${NM} -g --undefined-only "${archive_${layer}}" OUTPUT_VARIABLE out)
  string(REGEX MATCHALL "U [A-Za-z_][A-Za-z0-9_.]*" undefs "${out}")
  list(REMOVE_DUPLICATES undefs)
  foreach(u ${undefs})
    string(REGEX REPLACE "^U " "" sym "${u}")
    if(DEFINED owner_${sym})
      set(owner ${owner_${sym}})
      if(NOT owner STREQUAL layer AND NOT rank_${owner} LESS rank_${layer})
        string(APPEND violations "\n  ${layer} uses ${sym}, defined in ${owner}")
      endif()
    endif()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "layer violation (a layer may only call the layers below it):${violations}")
endif()

# test_layers: an upward include fails to compile, the downward control compiles, and an
# upward call is refused by check_layers.cmake with the offending symbol named.
function(build target result_var output_var)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${result_var} ${rc} PARENT_SCOPE)
  set(${output_var} "${out}${err}" PARENT_SCOPE)
endfunction()

build(layer_probe_downward_include rc out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "control: core's own headers did not compile:\n${out}")
endif()
build(layer_probe_upward_include rc out)
if(rc EQUAL 0)
  message(FATAL_ERROR "core could include toposched/sim.h: the include layering is not enforced")
endif()
if(NOT out MATCHES "sim\\.h")
  message(FATAL_ERROR "the upward include failed for another reason:\n${out}")
endif()

build(layer_probe_upward_call rc out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the call probe did not build:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -DNM=${NM} "-DLAYERS=base;topo;core;sim"
                        "-DARCHIVES=base=${BASE};topo=${TOPO};core=${PROBE};sim=${SIM}"
                        -P ${CHECK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "check_layers accepted core calling ts_rng_seed (sim)")
endif()
if(NOT err MATCHES "core uses ts_rng_seed, defined in sim")
  message(FATAL_ERROR "check_layers failed without naming the upward call:\n${out}${err}")
endif()
message(STATUS "upward include and upward call both refused; the control compiles")

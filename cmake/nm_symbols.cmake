# ts_nm_defined(<out-var> <file> <nm option>...): the names of the symbols that `nm
# <options> --defined-only <file>` lists (-g: an archive's globals, -D: a shared library's
# exports). Fails naming the file when nm does. NM is the nm to run.
function(ts_nm_defined out file)
  execute_process(COMMAND ${NM} ${ARGN} --defined-only "${file}" OUTPUT_VARIABLE text
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} ${ARGN} --defined-only failed on ${file}")
  endif()
  string(REGEX MATCHALL "[0-9a-fA-F]+ [A-Za-z] [^ \n]+" lines "${text}")
  set(names "")
  foreach(line ${lines})
    string(REGEX REPLACE "^.* " "" name "${line}")
    list(APPEND names ${name})
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# Writes OUT, a header defining TS_GIT_DESCRIBE: `git describe --always --dirty` of the
# source tree SRC ("" when SRC is not a git checkout or git is missing). Run at every build
# (tools/toposched/CMakeLists.txt); configure_file() rewrites OUT only when the text
# changes, so that an unchanged tree rebuilds nothing.
# Script mode (-P) sets no policies: take the project's, so CMP0053 is NEW.
cmake_minimum_required(VERSION 3.20)
set(describe "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE describe
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(describe "")
  endif()
endif()
file(WRITE "${OUT}.in" "#define TS_GIT_DESCRIBE \"@describe@\"\n")
configure_file("${OUT}.in" "${OUT}" @ONLY)

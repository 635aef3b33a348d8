# cmake --install: libtoposched (static and shared), the headers of its public API, the
# toposched CLI and toposched.pc. Included by the top-level CMakeLists.txt after src/ and
# tools/.
install(TARGETS toposched_static toposched_shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS toposched-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The public API: toposched.h and everything it includes; nothing else of the core.
set(TS_PUBLIC_HEADERS
    ${PROJECT_SOURCE_DIR}/include/rt/toposched/toposched.h
    ${PROJECT_SOURCE_DIR}/include/rt/toposched/runtime.h
    ${PROJECT_SOURCE_DIR}/include/rt/toposched/api.h
    ${PROJECT_SOURCE_DIR}/include/core/toposched/tg_layout.h
    ${PROJECT_BINARY_DIR}/generated/include/toposched/version.h)
install(FILES ${TS_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/toposched)

# pkg-config. The prefix is found from the .pc file's own place (${pcfiledir}), so that
# `cmake --install --prefix DIR` gives a working file whatever prefix was configured.
# The private part is what a static link needs besides libtoposched.a.
file(RELATIVE_PATH TS_PC_UP "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" TS_PC_UP "${TS_PC_UP}")
set(TS_PC_PREFIX "\${pcfiledir}/${TS_PC_UP}")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(TS_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(TS_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
# Libs.private names the libraries libtoposched's objects call, not Requires.private: that
# would add hwloc's own private libraries (-ludev, ...), which only a fully static hwloc
# needs and which are missing where their -dev packages are (Debian ships no libudev.a).
set(TS_PC_LIBS_PRIVATE "")
foreach(dir ${HWLOC_LIBRARY_DIRS} ${LIBXML2_LIBRARY_DIRS} ${NUMA_LIBRARY_DIRS})
  if(NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
    string(APPEND TS_PC_LIBS_PRIVATE "-L${dir} ")
  endif()
endforeach()
string(APPEND TS_PC_LIBS_PRIVATE "-lhwloc -lxml2 -lnuma -lpthread -lm")
configure_file(${PROJECT_SOURCE_DIR}/cmake/toposched.pc.in
               ${PROJECT_BINARY_DIR}/toposched.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/toposched.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# test_exports: the shared library exports the TS_API functions of the installed headers
# and nothing else.
if(TS_BUILD_TESTS)
  add_test(NAME test_exports
           COMMAND ${CMAKE_COMMAND} "-DNM=${CMAKE_NM}" -DLIBRARY=$<TARGET_FILE:toposched_shared>
                   "-DHEADERS=${TS_PUBLIC_HEADERS}" -P ${PROJECT_SOURCE_DIR}/cmake/check_exports.cmake)
endif()

# The rt-app workload files toposched sim finds by name (--workload periodic); the CLI
# looks for them at <bindir>/../share/toposched/workloads (tools/toposched/
# cli_workload_file.c).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/toposched/workloads
        DESTINATION ${CMAKE_INSTALL_DATADIR}/toposched FILES_MATCHING PATTERN "*.json")

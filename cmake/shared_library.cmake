# SPDX-License-Identifier: MIT
# libgridkit.so: the core (gridkit_core's objects, linked whole) as a shared
# library with a SONAME, exporting only the functions the public headers
# declare (a version script made from them), and the files that let other
# builds find it: gridkit.pc (pkg-config) and gridkitConfig.cmake
# (find_package(gridkit), target gridkit::gridkit). Included from CMakeLists.txt
# after gridkit_core, with GK_PUBLIC_HEADERS set.
set(_gk_syms "")
# a function added to a public header re-runs this (else its symbol stays local)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${GK_PUBLIC_HEADERS})
foreach(h ${GK_PUBLIC_HEADERS})
  file(STRINGS ${h} _gk_lines REGEX "^[a-z].*[ *]gk_[a-z0-9_]+\\(")
  foreach(l ${_gk_lines})
    if(NOT l MATCHES "^(static|typedef)")
      string(REGEX MATCH "gk_[a-z0-9_]+\\(" _gk_m "${l}")
      string(REGEX REPLACE "\\($" "" _gk_m "${_gk_m}")
      list(APPEND _gk_syms ${_gk_m})
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES _gk_syms)
list(JOIN _gk_syms ";\n    " _gk_sym_lines)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/gridkit.map CONTENT
  "GRIDKIT_${PROJECT_VERSION_MAJOR} {\n  global:\n    ${_gk_sym_lines};\n  local: *;\n};\n")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/gridkit_shared.c CONTENT
  "/* libgridkit.so is gridkit_core's objects, linked whole (cmake/shared_library.cmake). */\ntypedef int gk_shared_unit;\n")

add_library(gridkit_shared SHARED ${CMAKE_BINARY_DIR}/gridkit_shared.c)
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24)
  target_link_libraries(gridkit_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,gridkit_core>")
else()
  target_link_libraries(gridkit_shared PRIVATE -Wl,--whole-archive gridkit_core -Wl,--no-whole-archive)
endif()
target_link_options(gridkit_shared PRIVATE -Wl,--version-script=${CMAKE_BINARY_DIR}/gridkit.map
  -Wl,--no-undefined)
set_property(TARGET gridkit_shared APPEND PROPERTY LINK_DEPENDS ${CMAKE_BINARY_DIR}/gridkit.map)
target_include_directories(gridkit_shared INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/algorithms/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(gridkit_shared PROPERTIES OUTPUT_NAME gridkit EXPORT_NAME gridkit
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
install(TARGETS gridkit_shared EXPORT gridkitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# pkg-config: paths relative to the .pc file, so that a moved tree still answers
file(RELATIVE_PATH _gk_pc_to_prefix "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
file(RELATIVE_PATH _gk_prefix_to_lib "${CMAKE_INSTALL_PREFIX}" "${CMAKE_INSTALL_FULL_LIBDIR}")
file(RELATIVE_PATH _gk_prefix_to_inc "${CMAKE_INSTALL_PREFIX}" "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/gridkit.pc CONTENT [=[
prefix=${pcfiledir}/@_gk_pc_to_prefix@
libdir=${prefix}/@_gk_prefix_to_lib@
includedir=${prefix}/@_gk_prefix_to_inc@

Name: gridkit
Description: scattered points to grids: gdal_grid's algorithms, kriging, densities, ridges (C API, no GDAL)
Version: @PROJECT_VERSION@
Libs: -L${libdir} -lgridkit
Cflags: -I${includedir}
]=] @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/gridkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# CMake: find_package(gridkit) -> gridkit::gridkit
include(CMakePackageConfigHelpers)
set(_gk_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/gridkit)
install(EXPORT gridkitTargets NAMESPACE gridkit:: DESTINATION ${_gk_cmakedir} COMPONENT dev)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/gridkitConfig.cmake CONTENT
  "# find_package(gridkit): the target gridkit::gridkit (libgridkit.so and its headers)\ninclude(\"\${CMAKE_CURRENT_LIST_DIR}/gridkitTargets.cmake\")\n" @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/gridkitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/gridkitConfig.cmake ${CMAKE_BINARY_DIR}/gridkitConfigVersion.cmake
  DESTINATION ${_gk_cmakedir} COMPONENT dev)

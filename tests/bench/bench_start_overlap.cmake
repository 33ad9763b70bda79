# SPDX-License-Identifier: MIT
# bench_start_overlap: reading a GeoPackage while another thread loads libgdal
# (tests/bench/bench_start_overlap.c; its figures are in docs/benchmarks.md).
# Not a test. SQLite comes with the GDAL layer.
if(GRIDKIT_WITH_GDAL)
  add_executable(bench_start_overlap ${CMAKE_CURRENT_LIST_DIR}/bench_start_overlap.c)
  target_compile_definitions(bench_start_overlap PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(bench_start_overlap PRIVATE SQLite::SQLite3 OpenMP::OpenMP_C Threads::Threads
    ${CMAKE_DL_LIBS})
  set_target_properties(bench_start_overlap PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
endif()

# SPDX-License-Identifier: MIT
# bench_ridges: ridges, GPU against the CPU cores (tests/bench/bench_ridges.c).
# Core only (runs on the GPU machine without GDAL). Not a test.
add_executable(bench_ridges ${CMAKE_CURRENT_LIST_DIR}/bench_ridges.c)
target_link_libraries(bench_ridges PRIVATE gridkit_core)
target_compile_definitions(bench_ridges PRIVATE _POSIX_C_SOURCE=200809L)
set_target_properties(bench_ridges PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

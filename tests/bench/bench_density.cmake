# SPDX-License-Identifier: MIT
# bench_density: heatmap, gauss, kernel_smooth: GPU against the CPU cores and the seed case (tests/bench/bench_density.c).
# Core only (runs on the GPU machine without GDAL). Not a test.
add_executable(bench_density ${CMAKE_CURRENT_LIST_DIR}/bench_density.c)
target_link_libraries(bench_density PRIVATE gridkit_core)
target_compile_definitions(bench_density PRIVATE _POSIX_C_SOURCE=200809L)
set_target_properties(bench_density PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

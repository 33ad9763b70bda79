# SPDX-License-Identifier: MIT
# bench_linear: `linear` on generated points through the core (no GDAL), its
# set-up and interpolation timed apart (tests/bench/bench_linear.c). Not a test.
add_executable(bench_linear ${CMAKE_CURRENT_LIST_DIR}/bench_linear.c)
target_include_directories(bench_linear PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(bench_linear PRIVATE gridkit_core)
target_compile_definitions(bench_linear PRIVATE _POSIX_C_SOURCE=200809L)
set_target_properties(bench_linear PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# SPDX-License-Identifier: MIT
# bench_cv: leave-one-out and k-fold at scale, core only (tests/bench/bench_cv.c).
# Not a test.
add_executable(bench_cv ${CMAKE_CURRENT_LIST_DIR}/bench_cv.c)
target_include_directories(bench_cv PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(bench_cv PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(bench_cv PRIVATE gridkit_core)
set_target_properties(bench_cv PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

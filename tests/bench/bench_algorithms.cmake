# SPDX-License-Identifier: MIT
# bench_algorithms: k-d tree queries, an invdistnn tile and the bucket grid's
# window statistics, one core (tests/bench/bench_algorithms.c, on the
# test_algorithms harness). Not a test.
add_executable(bench_algorithms ${CMAKE_CURRENT_LIST_DIR}/bench_algorithms.c
                                ${CMAKE_CURRENT_LIST_DIR}/../core/algo_harness.c)
target_include_directories(bench_algorithms PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(bench_algorithms PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(bench_algorithms PRIVATE gridkit_core)
set_target_properties(bench_algorithms PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

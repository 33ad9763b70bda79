# SPDX-License-Identifier: MIT
# bench_gpu: the GPU benchmark (tests/bench/bench_gpu.c). It does not link
# CUDA: it loads the module at run time, so it builds everywhere. Built next to
# gridkit_cuda.so, where the core looks. Not a test.
add_executable(bench_gpu ${CMAKE_CURRENT_LIST_DIR}/bench_gpu.c ${CMAKE_CURRENT_LIST_DIR}/bench_docs.c)
target_include_directories(bench_gpu PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(bench_gpu PRIVATE gridkit_core)
target_compile_definitions(bench_gpu PRIVATE _POSIX_C_SOURCE=200809L)
set_target_properties(bench_gpu PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# The guard's figures: every row of bench_gpu's first table has its GPU
# figures in docs/benchmarks.md (no GPU needed).
add_test(NAME bench_docs COMMAND bench_gpu docs-check WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})

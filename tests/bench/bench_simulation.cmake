# SPDX-License-Identifier: MIT
# bench_simulation: sequential Gaussian simulation on generated data through the core
# (no GDAL), its set-up and the whole grid's realizations timed (tests/bench/bench_simulation.c).
# Not a test.
add_executable(bench_simulation ${CMAKE_CURRENT_LIST_DIR}/bench_simulation.c)
target_include_directories(bench_simulation PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(bench_simulation PRIVATE gridkit_core)
target_compile_definitions(bench_simulation PRIVATE _POSIX_C_SOURCE=200809L)
set_target_properties(bench_simulation PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

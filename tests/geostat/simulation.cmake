# SPDX-License-Identifier: MIT
# simulation: -a kriging:...:nsim=N in the core, statistically (moments, variogram,
# histogram) and byte for byte across threads, windows, batches and chunks.
add_executable(test_simulation ${CMAKE_CURRENT_LIST_DIR}/test_simulation.c)
target_include_directories(test_simulation PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_simulation PRIVATE gridkit_core m)
gk_add_c_test(NAME simulation COMMAND test_simulation)
set_tests_properties(simulation PROPERTIES TIMEOUT 300)
gk_sanitize(tsan simulation)

# SPDX-License-Identifier: MIT
# ridges_density: `density` (algorithms/ridges/density.c) on synthetic noisy
# curves against the true curve, threads 1 and 3 bit for bit, bad input;
# ridges_density_step: scms_step.h's sums against a long-double evaluation.
add_executable(test_density ${CMAKE_CURRENT_LIST_DIR}/test_density.c)
target_include_directories(test_density PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_density PRIVATE gridkit_core)
gk_add_c_test(NAME ridges_density COMMAND test_density)
set_tests_properties(ridges_density PROPERTIES TIMEOUT 300)
add_executable(test_scms_step ${CMAKE_CURRENT_LIST_DIR}/test_scms_step.c)
target_include_directories(test_scms_step PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_scms_step PRIVATE gridkit_core)
gk_add_c_test(NAME ridges_density_step COMMAND test_scms_step)
# ridges_kdr: density against R's ks::kdr (tests/ridges/kdr_peer.sh); skipped
# (exit 77) where R or r-cran-ks is missing.
add_executable(kdr_peer ${CMAKE_CURRENT_LIST_DIR}/kdr_peer.c)
target_include_directories(kdr_peer PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(kdr_peer PRIVATE gridkit_core)
add_test(NAME ridges_kdr COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/kdr_peer.sh $<TARGET_FILE:kdr_peer>
                                    ${CMAKE_BINARY_DIR}/test-work/ridges_kdr)
set_tests_properties(ridges_kdr PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# ridges_density_lines: density end to end through gk_ridges() (the lines).
add_executable(test_density_lines ${CMAKE_CURRENT_LIST_DIR}/test_density_lines.c)
target_include_directories(test_density_lines PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_density_lines PRIVATE gridkit_core)
gk_add_c_test(NAME ridges_density_lines COMMAND test_density_lines)
set_tests_properties(ridges_density_lines PROPERTIES TIMEOUT 300)

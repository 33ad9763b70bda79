# SPDX-License-Identifier: MIT
# Cross-validation in the core (tests/geostat/test_crossval.c, hand-computed
# cases, no GDAL); `gridkit cv` end to end is tests/driver/cv_cli.cmake.
add_executable(test_crossval ${CMAKE_CURRENT_LIST_DIR}/test_crossval.c)
target_include_directories(test_crossval PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_crossval PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_crossval PRIVATE gridkit_core)
gk_add_c_test(NAME crossval COMMAND test_crossval)
set_tests_properties(crossval PROPERTIES TIMEOUT 120)

# The fast ways (one index, the closed form) against a job per fold.
add_executable(test_crossval_ways ${CMAKE_CURRENT_LIST_DIR}/test_crossval_ways.c)
target_include_directories(test_crossval_ways PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_crossval_ways PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_crossval_ways PRIVATE gridkit_core)
gk_add_c_test(NAME crossval_ways COMMAND test_crossval_ways)
set_tests_properties(crossval_ways PROPERTIES TIMEOUT 300)

# Progress and cancel of cross-validation and of the variogram's pair sums
# (gk_crossval_part_ex, gk_variogram_blocks_ex): 0 first, 1 last, never
# back; a callback returning 0 stops the work; the same bytes as without.
add_executable(test_geostat_progress ${CMAKE_CURRENT_LIST_DIR}/test_geostat_progress.c)
target_include_directories(test_geostat_progress PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_geostat_progress PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_geostat_progress PRIVATE gridkit_core)
gk_add_c_test(NAME cv_variogram_progress COMMAND test_geostat_progress)
set_tests_properties(cv_variogram_progress PROPERTIES TIMEOUT 300)

# SPDX-License-Identifier: MIT
# indicator: -a kriging:...:indicator=c1,c2,... in the core (each band kriging of its
# indicator, GSLIB's order relations, refusals); gstat in gstat/ik_compare.py.
add_executable(test_indicator ${CMAKE_CURRENT_LIST_DIR}/test_indicator.c)
target_include_directories(test_indicator PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_indicator PRIVATE gridkit_core m)
gk_add_c_test(NAME indicator COMMAND test_indicator)
set_tests_properties(indicator PROPERTIES TIMEOUT 120)

# SPDX-License-Identifier: MIT
# local_select: gstat's neighbourhood as local kriging and the local
# polynomials search it (geostat/local_select.c: a bound from the previous
# node, a cache of nearby points) against every point ranked, node by node.
add_executable(test_local_select ${CMAKE_CURRENT_LIST_DIR}/test_local_select.c)
target_include_directories(test_local_select PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_local_select PRIVATE gridkit_core)
gk_add_c_test(NAME local_select COMMAND test_local_select)
set_tests_properties(local_select PROPERTIES TIMEOUT 300)

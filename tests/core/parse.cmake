# SPDX-License-Identifier: MIT
# parse: the -a string parser against the cases in specs/ (round trips, refusals;
# no GDAL needed).
add_executable(test_parse ${CMAKE_CURRENT_LIST_DIR}/test_parse.c)
target_link_libraries(test_parse PRIVATE gridkit_core)
gk_add_c_test(NAME parse_canonical COMMAND test_parse ${CMAKE_CURRENT_LIST_DIR}/specs)

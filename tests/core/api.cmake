# SPDX-License-Identifier: MIT
# api: the C API's refusals and a run's callbacks (stop, failing sink), no GDAL.
add_executable(test_api ${CMAKE_CURRENT_LIST_DIR}/test_api.c)
target_include_directories(test_api PRIVATE ${CMAKE_SOURCE_DIR}/algorithms/include ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(test_api PRIVATE gridkit_core)
gk_add_c_test(NAME api COMMAND test_api)

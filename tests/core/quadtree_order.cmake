# SPDX-License-Identifier: MIT
# quadtree_order: gdal_grid's tie order (core/quadtree_order.c) against the
# plain recursion over its rules, on data that makes each rule matter, for
# 1, 2 and 7 threads (no GDAL).
add_executable(test_quadtree_order ${CMAKE_CURRENT_LIST_DIR}/test_quadtree_order.c)
target_include_directories(test_quadtree_order PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_quadtree_order PRIVATE gridkit_core)
gk_add_c_test(NAME quadtree_order COMMAND test_quadtree_order)
gk_sanitize(tsan quadtree_order) # the tie order's tasks
set_tests_properties(quadtree_order PROPERTIES TIMEOUT 300)

# quadtree_order: gdal_grid's tie order (core/quadtree_order.c) against the
# plain recursion over its rules, on data that makes each rule matter, for
# 1, 2 and 7 threads (no GDAL).
add_executable(test_quadtree_order ${CMAKE_CURRENT_LIST_DIR}/test_quadtree_order.c)
target_include_directories(test_quadtree_order PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_quadtree_order PRIVATE gridkit_core)
add_test(NAME quadtree_order COMMAND test_quadtree_order)
set_tests_properties(quadtree_order PROPERTIES TIMEOUT 300)

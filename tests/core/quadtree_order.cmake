# SPDX-License-Identifier: MIT
# quadtree_order: gdal_grid's tie order (core/quadtree_order.c) against the
# plain recursion over its rules, on data that makes each rule matter, for
# 1, 2 and 7 threads (no GDAL).
add_executable(test_quadtree_order ${CMAKE_CURRENT_LIST_DIR}/test_quadtree_order.c)
target_include_directories(test_quadtree_order PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_quadtree_order PRIVATE gridkit_core)
gk_add_c_test(NAME quadtree_order COMMAND test_quadtree_order)
gk_sanitize(tsan quadtree_order) # the tie order's tasks
# Without LeakSanitizer's exit check: with clang's libomp its tracer crashes
# now and then suspending the 7-thread team ("Tracer caught signal 11", about
# 1 run in 7 on the 2-core VM, 0 in 20 without it); AddressSanitizer and
# UBSan still check every access, and the other tests check leaks.
set_tests_properties(quadtree_order PROPERTIES TIMEOUT 300
                     ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1")

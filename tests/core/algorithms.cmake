# SPDX-License-Identifier: MIT
# algorithms: the k-d tree, neighbourhood selection and the search-based
# algorithms against hand-checked values and brute force (no GDAL needed).
# One program from the families' files, which share core/algo_harness.[ch].
set(GK_ALGO_TEST_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_algorithms.c
    ${CMAKE_CURRENT_LIST_DIR}/algo_harness.c
    ${CMAKE_CURRENT_LIST_DIR}/../search/test_search.c
    ${CMAKE_CURRENT_LIST_DIR}/../idw/test_idw.c
    ${CMAKE_CURRENT_LIST_DIR}/../window/test_window.c)
add_executable(test_algorithms ${GK_ALGO_TEST_SOURCES})
target_include_directories(test_algorithms PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_algorithms PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_algorithms PRIVATE gridkit_core)
gk_add_c_test(NAME algorithms COMMAND test_algorithms)
gk_sanitize(tsan algorithms) # the tile engine and the k-d tree's tasks on several threads
set_tests_properties(algorithms PROPERTIES TIMEOUT 300) # ThreadSanitizer runs it 5x slower
# the single-precision invdist kernels a capped CPU level runs (AVX2, portable)
foreach(isa avx2 portable)
  gk_add_c_test(NAME algorithms_single_${isa} COMMAND test_algorithms single)
  set_tests_properties(algorithms_single_${isa} PROPERTIES ENVIRONMENT GRIDKIT_ISA=${isa})
endforeach()

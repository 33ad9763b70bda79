# SPDX-License-Identifier: MIT
# polynomial: -a polynomial in the core against exact expectations (no GDAL needed);
# its weighted forms against numpy's least squares (poly_weighted.py, through the CLI).
add_executable(test_polynomial ${CMAKE_CURRENT_LIST_DIR}/test_polynomial.c)
target_include_directories(test_polynomial PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_polynomial PRIVATE gridkit_core)
gk_add_c_test(NAME polynomial COMMAND test_polynomial)
set_tests_properties(polynomial PROPERTIES TIMEOUT 120)
if(GRIDKIT_WITH_GDAL)
  add_test(NAME polynomial_weighted
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/poly_weighted.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/polynomial_weighted)
  set_tests_properties(polynomial_weighted PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

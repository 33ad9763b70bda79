# SPDX-License-Identifier: MIT
# shepard: -a shepard in the core against exact expectations (no GDAL needed); against SAGA's
# tool (references in tests/idw/saga/refs/, made by tests/idw/saga/make_refs.py with saga_cmd;
# SAGA is needed only to regenerate them).
add_executable(test_shepard ${CMAKE_CURRENT_LIST_DIR}/test_shepard.c)
target_include_directories(test_shepard PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_shepard PRIVATE gridkit_core)
gk_add_c_test(NAME shepard COMMAND test_shepard)
set_tests_properties(shepard PROPERTIES TIMEOUT 120)
if(GRIDKIT_WITH_GDAL)
  add_test(NAME shepard_saga
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/saga/compare.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/shepard_saga)
  set_tests_properties(shepard_saga PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
  # gridkit cv -a shepard (leave-one-out, 5 folds) against SAGA's predictions from the same
  # training points (references in tests/idw/saga/refs/cv_meuse.csv, made by make_cv_refs.py).
  add_test(NAME shepard_saga_cv
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/saga/compare_cv.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/shepard_saga_cv)
  set_tests_properties(shepard_saga_cv PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

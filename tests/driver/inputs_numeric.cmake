# SPDX-License-Identifier: MIT
# Odd inputs that must give a correct result, checked against an independent
# computation or gdal_grid (tests/driver/inputs_numeric.py).
if(GRIDKIT_WITH_GDAL)
  find_program(GDAL_GRID_EXECUTABLE gdal_grid)
  add_test(NAME inputs_numeric
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/inputs_numeric.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/inputs_numeric ${GDAL_GRID_EXECUTABLE})
  set_tests_properties(inputs_numeric PROPERTIES TIMEOUT 300)
endif()

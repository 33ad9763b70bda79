# SPDX-License-Identifier: MIT
# Conformance: `gridkit grid` against Debian's gdal_grid, pixel by pixel
# (tests/conformance/conformance.py; data in data/, made by data/make_data.py).
if(GRIDKIT_WITH_GDAL)
  # If gdal_grid is missing the test fails and says so (CI installs gdal-bin).
  find_program(GDAL_GRID_EXECUTABLE gdal_grid)
  add_test(NAME conformance
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/conformance.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/conformance ${GDAL_GRID_EXECUTABLE})
  set_tests_properties(conformance PROPERTIES TIMEOUT 600)
endif()

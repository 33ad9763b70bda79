# SPDX-License-Identifier: MIT
# Conformance: `gridkit grid` against Debian's gdal_grid, pixel by pixel
# (tests/conformance/conformance.py; data in data/, made by data/make_data.py).
if(GRIDKIT_WITH_GDAL)
  # The system python: it is the one with osgeo (python3-gdal) and numpy.
  if(EXISTS /usr/bin/python3)
    set(GK_DEFAULT_TEST_PYTHON /usr/bin/python3)
  else()
    find_program(GK_DEFAULT_TEST_PYTHON python3)
  endif()
  set(GRIDKIT_TEST_PYTHON ${GK_DEFAULT_TEST_PYTHON} CACHE FILEPATH
      "Python with osgeo and numpy, for the conformance suite")
  # If gdal_grid is missing the test fails and says so (CI installs gdal-bin).
  find_program(GDAL_GRID_EXECUTABLE gdal_grid)
  add_test(NAME conformance
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/conformance.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/conformance ${GDAL_GRID_EXECUTABLE})
  set_tests_properties(conformance PROPERTIES TIMEOUT 600)
endif()

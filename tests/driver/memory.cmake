# SPDX-License-Identifier: MIT
# memory_flat: peak memory of `gridkit grid` does not grow with the grid size.
if(GRIDKIT_WITH_GDAL)
  add_test(NAME memory_flat COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/memory_flat.py
           $<TARGET_FILE:gridkit> ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/memory_work)
  set_tests_properties(memory_flat PROPERTIES TIMEOUT 120)
endif()

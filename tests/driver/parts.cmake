# SPDX-License-Identifier: MIT
# --parts as atomic as one file: slots, cancel, a concurrent run, a killed
# run's lock (tests/driver/parts.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME parts
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/parts.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/parts)
  set_tests_properties(parts PROPERTIES TIMEOUT 600)
endif()

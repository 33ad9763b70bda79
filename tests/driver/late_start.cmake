# SPDX-License-Identifier: MIT
# gridkit grid's late start: the cores begin while the GPU starts, where they
# might finish first (tests/driver/late_start.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME late_start
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/late_start.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/late_start)
  set_tests_properties(late_start PROPERTIES TIMEOUT 300)
endif()

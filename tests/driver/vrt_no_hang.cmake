# SPDX-License-Identifier: MIT
# An OGR VRT source gridded 200 times with the default --device auto, each run
# under a timeout: no run may hang (tests/driver/vrt_no_hang.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME vrt_no_hang
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/vrt_no_hang.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/vrt_no_hang 200)
  set_tests_properties(vrt_no_hang PROPERTIES TIMEOUT 900)
endif()

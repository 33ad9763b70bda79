# SPDX-License-Identifier: MIT
# gdal_cli: `gdal driver gridkit grid|ridges` and a GDAL pipeline reading a
# GRIDKIT: string, on a GDAL that has them (3.11+); skipped on 3.6 (gdal_cli.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME gdal_cli
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/gdal_cli.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/gdal_cli
                   ${CMAKE_BINARY_DIR}/gdalplugins)
  set_tests_properties(gdal_cli PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
                       FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

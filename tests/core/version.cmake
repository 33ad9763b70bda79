# SPDX-License-Identifier: MIT
# version: one version in the command, the library, the GDAL plugin, the QGIS
# plugin and NEWS, from gridkit.h (version.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME version
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/version.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/version
                   ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(version PROPERTIES TIMEOUT 60 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

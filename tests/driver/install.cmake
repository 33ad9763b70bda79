# SPDX-License-Identifier: MIT
# install: cmake --install into a prefix, the tree moved, and the command,
# its modules and the GDAL plugin still found from there (install.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME install
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/install.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/install ${CMAKE_BINARY_DIR})
  set_tests_properties(install PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

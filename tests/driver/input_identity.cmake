# SPDX-License-Identifier: MIT
# An input named another way is still an input: every command that writes,
# against every way of naming an input, refuses and changes nothing
# (tests/driver/input_identity.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME input_identity
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/input_identity.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/input_identity)
  set_tests_properties(input_identity PROPERTIES TIMEOUT 600)
endif()

# SPDX-License-Identifier: MIT
# Bad input: `gridkit grid` must fail cleanly, say why, and leave no output
# behind (tests/driver/bad_input.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME bad_input
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/bad_input.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/bad_input)
  set_tests_properties(bad_input PROPERTIES TIMEOUT 300)
  gk_sanitize(asan bad_input NEEDS gridkit)
endif()

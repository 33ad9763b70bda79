# SPDX-License-Identifier: MIT
# completion: bash completion of commands, options, algorithms and keys
# from the program itself (scripts/gridkit-completion.bash; completion.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME completion
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/completion.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/completion)
  set_tests_properties(completion PROPERTIES TIMEOUT 120 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

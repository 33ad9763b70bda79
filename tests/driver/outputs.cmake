# SPDX-License-Identifier: MIT
# Outputs and process safety: no input written, only
# regular files replaced, no temporary after a cancel, thread limits
# (tests/driver/outputs.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME outputs
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/outputs.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/outputs)
  set_tests_properties(outputs PROPERTIES TIMEOUT 300)
endif()

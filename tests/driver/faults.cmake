# SPDX-License-Identifier: MIT
# Fault injection: disk full, read-only directory, a source changed while
# read, a killed run (tests/driver/faults.sh; the disk cases need root for a tmpfs
# and are skipped with a message otherwise).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME faults
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/faults.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/faults)
  set_tests_properties(faults PROPERTIES TIMEOUT 300)
endif()

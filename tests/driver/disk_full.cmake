# SPDX-License-Identifier: MIT
# A full disk, for every kind of output gridkit writes: non-zero exit, the
# reason, the previous output intact (tests/driver/disk_full.sh; root).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME disk_full
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/disk_full.sh
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/disk_full)
  set_tests_properties(disk_full PROPERTIES TIMEOUT 900)
endif()

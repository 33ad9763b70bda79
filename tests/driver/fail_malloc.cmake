# SPDX-License-Identifier: MIT
# Every allocation of gridkit's own code made to fail in turn, under the
# real command (fail_malloc.c preloaded; fail_malloc.sh): a clean refusal or
# the same bytes, never a crash. Not under the sanitizers (they replace malloc).
if(GRIDKIT_WITH_GDAL)
  add_library(gk_fail_malloc MODULE ${CMAKE_CURRENT_LIST_DIR}/fail_malloc.c)
  set_target_properties(gk_fail_malloc PROPERTIES PREFIX "")
  target_link_libraries(gk_fail_malloc PRIVATE ${CMAKE_DL_LIBS})
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME fail_malloc
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/fail_malloc.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/fail_malloc
                   $<TARGET_FILE:gk_fail_malloc>)
  set_tests_properties(fail_malloc PROPERTIES TIMEOUT 900 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

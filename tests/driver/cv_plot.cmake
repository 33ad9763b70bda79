# SPDX-License-Identifier: MIT
# cv_plot: gridkit cv --plot, its files and refusals (cv_plot.sh).
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME cv_plot
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/cv_plot.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/cv_plot)
  set_tests_properties(cv_plot PROPERTIES TIMEOUT 120 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

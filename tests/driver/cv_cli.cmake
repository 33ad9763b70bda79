# SPDX-License-Identifier: MIT
# `gridkit cv` and `gridkit variogram` end to end (tests/driver/cv_cli.py: JSON
# summary, residual layers, bad input; variogram's estimators, plots, bad options).
if(GRIDKIT_WITH_GDAL)
  add_test(NAME cv_cli
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cv_cli.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/cv_cli)
  set_tests_properties(cv_cli PROPERTIES TIMEOUT 300)
endif()

# GDAL's progress for `gridkit cv` and `gridkit variogram` (none with -q, the
# same bytes either way) and the line each says first on a slow path
# (tests/driver/progress_cli.py).
if(GRIDKIT_WITH_GDAL)
  add_test(NAME cv_variogram_progress_cli
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/progress_cli.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/progress_cli)
  set_tests_properties(cv_variogram_progress_cli PROPERTIES TIMEOUT 600)
endif()

# SPDX-License-Identifier: MIT
# write_lines: ridge lines through OGR and the vector output under them
# (driver/io/write_lines.c, driver/io/write_vector.c), format by format.
if(TARGET gridkit_gdal)
  add_executable(test_write_lines ${CMAKE_CURRENT_LIST_DIR}/test_write_lines.c)
  target_link_libraries(test_write_lines PRIVATE gridkit_gdal)
  target_compile_definitions(test_write_lines PRIVATE _POSIX_C_SOURCE=200809L)
  gk_add_c_test(NAME write_lines COMMAND test_write_lines ${CMAKE_CURRENT_BINARY_DIR}/write_lines_work)
  set_tests_properties(write_lines PROPERTIES TIMEOUT 60)
endif()

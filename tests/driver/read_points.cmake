# SPDX-License-Identifier: MIT
# Points in: the XYZ text reader and gk_read_points (OGR selection options).
if(TARGET gridkit_gdal)
  add_executable(test_read_points ${CMAKE_CURRENT_LIST_DIR}/test_read_points.c
                                  ${CMAKE_CURRENT_LIST_DIR}/test_read_points_ogr.c
                                  ${CMAKE_CURRENT_LIST_DIR}/test_read_points_arrow.c)
  target_link_libraries(test_read_points PRIVATE gridkit_gdal)
  gk_add_c_test(NAME read_points_xyz COMMAND test_read_points xyz)
  gk_add_c_test(NAME read_points_ogr COMMAND test_read_points ogr)
  gk_sanitize(tsan read_points_ogr) # the readers on several threads
  gk_add_c_test(NAME read_points_arrow COMMAND test_read_points arrow)
endif()

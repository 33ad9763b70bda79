# SPDX-License-Identifier: MIT
# linear: Delaunay (GDAL/qhull) triangulation + barycentric interpolation.
if(TARGET gridkit_gdal)
  add_executable(test_linear ${CMAKE_CURRENT_LIST_DIR}/test_linear.c)
  target_include_directories(test_linear PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
  target_link_libraries(test_linear PRIVATE gridkit_gdal gridkit_core)
  gk_add_c_test(NAME linear COMMAND test_linear)
endif()

# SPDX-License-Identifier: MIT
# delaunay: the core's sweep-hull Delaunay (algorithms/linear/delaunay*.c), checked
# for validity and against GDAL's qhull triangulation.
if(TARGET gridkit_gdal)
  # The same source again with part of the points moved to the end of the
  # sweep, so that inside-the-hull insertion is tested too.
  add_library(gk_delaunay_deferred OBJECT ${CMAKE_SOURCE_DIR}/algorithms/linear/delaunay.c
    ${CMAKE_SOURCE_DIR}/algorithms/linear/delaunay_sweep.c)
  target_compile_definitions(gk_delaunay_deferred PRIVATE GK_DELAUNAY_TEST_DEFER=3)
  target_include_directories(gk_delaunay_deferred PRIVATE ${CMAKE_SOURCE_DIR}/algorithms
    ${CMAKE_SOURCE_DIR}/algorithms/include)
  add_executable(test_delaunay ${CMAKE_CURRENT_LIST_DIR}/test_delaunay.c
                               $<TARGET_OBJECTS:gk_delaunay_deferred>)
  target_include_directories(test_delaunay PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
  target_link_libraries(test_delaunay PRIVATE gridkit_gdal gridkit_core)
  gk_add_c_test(NAME delaunay COMMAND test_delaunay)
endif()

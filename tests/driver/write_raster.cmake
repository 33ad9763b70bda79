# SPDX-License-Identifier: MIT
# write_raster: the GDAL raster writer (driver/io/write_raster.c; the safety
# cases in test_write_raster_safety.c, the edge cases in test_write_raster_edges.c).
if(TARGET gridkit_gdal)
  add_executable(test_write_raster ${CMAKE_CURRENT_LIST_DIR}/test_write_raster.c
                                   ${CMAKE_CURRENT_LIST_DIR}/test_write_raster_safety.c
                                   ${CMAKE_CURRENT_LIST_DIR}/test_write_raster_edges.c)
  target_link_libraries(test_write_raster PRIVATE gridkit_gdal)
  target_compile_definitions(test_write_raster PRIVATE _POSIX_C_SOURCE=200809L)
  set(GK_WR_DIR ${CMAKE_CURRENT_BINARY_DIR}/write_raster_work)
  gk_add_c_test(NAME write_raster COMMAND test_write_raster ${GK_WR_DIR})
  # own process: ru_maxrss is the peak of the whole process (not under the
  # sanitizers, whose shadow memory is the peak there: add_test, no label)
  add_test(NAME write_raster_memory COMMAND test_write_raster --memory ${GK_WR_DIR}_memory)
  set_tests_properties(write_raster PROPERTIES TIMEOUT 60)
  set_tests_properties(write_raster_memory PROPERTIES TIMEOUT 60)
endif()

# SPDX-License-Identifier: MIT
# density: `-a heatmap` (algorithms/density/heatmap.c) against hand-computed
# values of QGIS's kernels, its bad input and the same bytes across threads
# (core only); and, opt-in with -DGRIDKIT_QGIS_TESTS=ON, against QGIS 3.22's
# Heatmap through qgis_process (tests/density/heatmap_qgis.sh).
add_executable(test_heatmap ${CMAKE_CURRENT_LIST_DIR}/test_heatmap.c)
target_include_directories(test_heatmap PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(test_heatmap PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_heatmap PRIVATE gridkit_core m)
gk_add_c_test(NAME density_heatmap COMMAND test_heatmap)
set_tests_properties(density_heatmap PROPERTIES TIMEOUT 300)
if(GRIDKIT_QGIS_TESTS)
  add_test(NAME heatmap_qgis
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/heatmap_qgis.sh ${CMAKE_BINARY_DIR}
                   ${CMAKE_BINARY_DIR}/test-work/heatmap_qgis)
  set_tests_properties(heatmap_qgis PROPERTIES TIMEOUT 600)
endif()
# -tr without an extent: QGIS's Heatmap grid (heatmap_extent.sh)
if(GRIDKIT_WITH_GDAL)
  add_test(NAME heatmap_extent
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/heatmap_extent.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/heatmap_extent)
  set_tests_properties(heatmap_extent PROPERTIES TIMEOUT 120 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

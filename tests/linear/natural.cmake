# SPDX-License-Identifier: MIT
# natural: -a natural in the core against exact expectations (test_natural.c, no GDAL needed);
# against CGAL 5.5's natural_neighbor_coordinates_2 and exact Voronoi cells
# (natural/compare.py; CGAL from Debian's libcgal-dev, which the setup's --tests installs).
add_executable(test_natural ${CMAKE_CURRENT_LIST_DIR}/test_natural.c)
target_include_directories(test_natural PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_natural PRIVATE gridkit_core)
gk_add_c_test(NAME natural COMMAND test_natural)
set_tests_properties(natural PROPERTIES TIMEOUT 120)
if(GRIDKIT_WITH_GDAL)
  find_package(CGAL QUIET)
  if(CGAL_FOUND)
    add_executable(natural_cgal ${CMAKE_CURRENT_LIST_DIR}/natural/natural_cgal.cpp)
    target_link_libraries(natural_cgal PRIVATE CGAL::CGAL)
    add_test(NAME natural_cgal
             COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/natural/compare.py
                     ${CMAKE_BINARY_DIR}/gridkit $<TARGET_FILE:natural_cgal>
                     ${CMAKE_BINARY_DIR}/test-work/natural_cgal)
    set_tests_properties(natural_cgal PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
  else()
    add_test(NAME natural_cgal COMMAND sh -c "echo 'CGAL not found: apt-get install libcgal-dev'; exit 77")
    set_tests_properties(natural_cgal PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

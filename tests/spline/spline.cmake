# SPDX-License-Identifier: MIT
# The spline family. rbf: -a rbf in the core against exact expectations (no GDAL needed); against
# SciPy's RBFInterpolator through the CLI (rbf_scipy.py).
add_executable(test_rbf ${CMAKE_CURRENT_LIST_DIR}/test_rbf.c)
target_link_libraries(test_rbf PRIVATE gridkit_core)
gk_add_c_test(NAME rbf COMMAND test_rbf)
set_tests_properties(rbf PROPERTIES TIMEOUT 120)
if(GRIDKIT_WITH_GDAL)
  add_test(NAME rbf_scipy
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/rbf_scipy.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/rbf_scipy)
  set_tests_properties(rbf_scipy PROPERTIES TIMEOUT 600 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()
# rst: the core against exact expectations; against GRASS's v.surf.rst in one
# segment (rst_grass.py runs grass-core's v.surf.rst in a throw-away location).
add_executable(test_rst ${CMAKE_CURRENT_LIST_DIR}/test_rst.c)
target_link_libraries(test_rst PRIVATE gridkit_core)
gk_add_c_test(NAME rst COMMAND test_rst)
set_tests_properties(rst PROPERTIES TIMEOUT 120)
if(GRIDKIT_WITH_GDAL)
  add_test(NAME rst_grass
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/rst_grass.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/rst_grass)
  set_tests_properties(rst_grass PROPERTIES TIMEOUT 600 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()
# surface: the core against exact expectations and its own bytes; against GMT's
# surface (surface_gmt.py runs gmt surface -r -Qr at a tight convergence).
add_executable(test_surface ${CMAKE_CURRENT_LIST_DIR}/test_surface.c)
target_link_libraries(test_surface PRIVATE gridkit_core)
gk_add_c_test(NAME surface COMMAND test_surface)
set_tests_properties(surface PROPERTIES TIMEOUT 300)
gk_sanitize(tsan surface) # the sweeps' wavefront and colours on several threads
if(GRIDKIT_WITH_GDAL)
  add_test(NAME surface_gmt
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/surface_gmt.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/surface_gmt)
  set_tests_properties(surface_gmt PROPERTIES TIMEOUT 900 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

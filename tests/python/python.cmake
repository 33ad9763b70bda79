# SPDX-License-Identifier: MIT
# The Python module (python/gridkit) under pytest, one ctest per file of
# tests/python/, against the build's libgridkit.so.0 (GRIDKIT_LIBRARY) and
# the build's command: grid(), variogram(), fit(), cv() and ridges() give the
# bytes `gridkit grid/variogram/cv/ridges` give, read back with GDAL's Python
# bindings. run_pytest.py exits 77 (skipped) where numpy or pytest
# (Debian's python3-numpy, python3-pytest) is missing; the comparisons with
# the command skip without python3-gdal.
if(NOT GRIDKIT_TEST_PYTHON)
  set(GRIDKIT_TEST_PYTHON /usr/bin/python3)
endif()
# the structs as the C compiler lays them out, for test_layout.py
add_executable(python_layout ${CMAKE_CURRENT_LIST_DIR}/layout.c)
target_include_directories(python_layout PRIVATE ${CMAKE_SOURCE_DIR}/algorithms/include)
file(GLOB _gk_py_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
foreach(t ${_gk_py_tests})
  get_filename_component(_gk_name ${t} NAME_WE)
  string(REGEX REPLACE "^test_" "python_" _gk_name ${_gk_name})
  add_test(NAME ${_gk_name}
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_pytest.py ${t}
                   ${CMAKE_BINARY_DIR}/test-work/${_gk_name})
  set_tests_properties(${_gk_name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
    ENVIRONMENT "GRIDKIT_LIBRARY=${CMAKE_BINARY_DIR}/libgridkit.so.0;PYTHONPATH=${CMAKE_SOURCE_DIR}/python;GRIDKIT_BUILD=${CMAKE_BINARY_DIR};GRIDKIT_SOURCE=${CMAKE_SOURCE_DIR};GRIDKIT_LAYOUT=$<TARGET_FILE:python_layout>;GRIDKIT_CMAKE=${CMAKE_COMMAND};GRIDKIT_WITH_GDAL=${GRIDKIT_WITH_GDAL}")
endforeach()

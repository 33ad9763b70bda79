# Cross-validation: the core (tests/test_crossval.c, hand-computed cases, no
# GDAL) and `gridkit cv` end to end (tests/cv_cli.py: JSON summary, residual
# layers, bad input).
add_executable(test_crossval ${CMAKE_CURRENT_LIST_DIR}/test_crossval.c)
target_include_directories(test_crossval PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_crossval PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_crossval PRIVATE gridkit_core)
add_test(NAME crossval COMMAND test_crossval)
set_tests_properties(crossval PROPERTIES TIMEOUT 120)

if(GRIDKIT_WITH_GDAL)
  # The system python: the one with osgeo (python3-gdal) and numpy.
  if(EXISTS /usr/bin/python3)
    set(GK_CV_PYTHON /usr/bin/python3)
  else()
    find_program(GK_CV_PYTHON python3)
  endif()
  add_test(NAME cv_cli
           COMMAND ${GK_CV_PYTHON} ${CMAKE_SOURCE_DIR}/tests/cv_cli.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/cv_cli)
  set_tests_properties(cv_cli PROPERTIES TIMEOUT 300)
endif()

# SPDX-License-Identifier: MIT
# ridges: `curve` against synthetic curves of known truth (quality bounds,
# the same bytes for any thread count, r1 estimated), its bad input and -a
# strings, the line builder and order step on hand-made graphs, and both
# methods at extreme coordinate scales (tests/ridges/test_ridges*.c; core
# only, no GDAL).
foreach(t test_ridges test_ridges_input test_ridges_lines test_ridges_scale)
  add_executable(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
  target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/algorithms ${CMAKE_SOURCE_DIR}/tests)
  target_compile_definitions(${t} PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(${t} PRIVATE gridkit_core m)
endforeach()
gk_add_c_test(NAME ridges_curve COMMAND test_ridges)
gk_add_c_test(NAME ridges_input COMMAND test_ridges_input)
gk_add_c_test(NAME ridges_lines COMMAND test_ridges_lines)
gk_add_c_test(NAME ridges_scale COMMAND test_ridges_scale)
set_tests_properties(ridges_curve ridges_input ridges_lines ridges_scale PROPERTIES TIMEOUT 300)

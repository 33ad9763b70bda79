# SPDX-License-Identifier: MIT
# density: `-a gauss` (algorithms/density/gauss.c) against a long-double
# direct sum in the test, its bad input, Scott's default and the same bytes
# across threads (core only); and against spatstat (tests/density/gauss_spatstat.sh).
add_executable(test_gauss ${CMAKE_CURRENT_LIST_DIR}/test_gauss.c)
target_include_directories(test_gauss PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_gauss PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_gauss PRIVATE gridkit_core m)
gk_add_c_test(NAME density_gauss COMMAND test_gauss)
gk_sanitize(tsan density_gauss) # method=fft's shared blocks
set_tests_properties(density_gauss PROPERTIES TIMEOUT 300)
# against spatstat.explore's densityfun (an exact direct sum) at our pixel
# centres; skipped (77) without R, spatstat.explore or python3-gdal
add_test(NAME gauss_spatstat
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gauss_spatstat.sh ${CMAKE_BINARY_DIR}
                 ${CMAKE_BINARY_DIR}/test-work/gauss_spatstat)
set_tests_properties(gauss_spatstat PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)

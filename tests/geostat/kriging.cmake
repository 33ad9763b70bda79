# SPDX-License-Identifier: MIT
# kriging: the core's kriging against exact expectations (no GDAL needed).
add_executable(test_kriging ${CMAKE_CURRENT_LIST_DIR}/test_kriging.c)
target_include_directories(test_kriging PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_kriging PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_kriging PRIVATE gridkit_core)
gk_add_c_test(NAME kriging COMMAND test_kriging)
set_tests_properties(kriging PROPERTIES TIMEOUT 120)
# kriging_kernels: the factor and the solve against the operation
# order they promise, bit for bit, on every instruction-set path.
add_executable(test_kriging_kernels ${CMAKE_CURRENT_LIST_DIR}/test_kriging_kernels.c)
target_include_directories(test_kriging_kernels PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(test_kriging_kernels PRIVATE gridkit_core)
gk_add_c_test(NAME kriging_kernels COMMAND test_kriging_kernels)
foreach(isa avx2 portable)
  gk_add_c_test(NAME kriging_kernels_${isa} COMMAND test_kriging_kernels)
  set_tests_properties(kriging_kernels_${isa} PROPERTIES ENVIRONMENT GRIDKIT_ISA=${isa})
endforeach()

# SPDX-License-Identifier: MIT
# same_bytes: every algorithm gives identical bytes with 1, 2 and 7 threads,
# engine tiles of several shapes and odd windows (no GDAL);
# then the AVX2 and portable kernels (GRIDKIT_ISA caps the CPU's level) must
# give the bytes the native run wrote.
add_executable(test_same_bytes ${CMAKE_CURRENT_LIST_DIR}/test_same_bytes.c)
target_include_directories(test_same_bytes PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_same_bytes PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_same_bytes PRIVATE gridkit_core)
set(GK_SB_DIGESTS ${CMAKE_BINARY_DIR}/test-work/same_bytes_native.txt)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/test-work)
gk_add_c_test(NAME same_bytes COMMAND test_same_bytes --write ${GK_SB_DIGESTS})
set_tests_properties(same_bytes PROPERTIES TIMEOUT 600)
foreach(isa avx2 portable)
  gk_add_c_test(NAME same_bytes_${isa} COMMAND test_same_bytes --compare ${GK_SB_DIGESTS})
  set_tests_properties(same_bytes_${isa} PROPERTIES TIMEOUT 600 DEPENDS same_bytes
                       ENVIRONMENT GRIDKIT_ISA=${isa})
endforeach()

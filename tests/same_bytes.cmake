# same_bytes: every algorithm gives identical bytes with 1, 2 and 7 threads,
# engine tiles of several shapes and odd windows (issue 22, item 2; no GDAL).
add_executable(test_same_bytes ${CMAKE_CURRENT_LIST_DIR}/test_same_bytes.c)
target_include_directories(test_same_bytes PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_same_bytes PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_same_bytes PRIVATE gridkit_core)
add_test(NAME same_bytes COMMAND test_same_bytes)
set_tests_properties(same_bytes PROPERTIES TIMEOUT 600)

# kriging: the core's kriging against exact expectations (no GDAL needed).
add_executable(test_kriging ${CMAKE_CURRENT_LIST_DIR}/test_kriging.c)
target_include_directories(test_kriging PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_kriging PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_kriging PRIVATE gridkit_core)
add_test(NAME kriging COMMAND test_kriging)
set_tests_properties(kriging PROPERTIES TIMEOUT 120)

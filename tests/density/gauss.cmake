# density: `-a gauss` (algorithms/density/gauss.c) against a long-double
# direct sum in the test, its bad input, Scott's default and the same bytes
# across threads (core only).
add_executable(test_gauss ${CMAKE_CURRENT_LIST_DIR}/test_gauss.c)
target_include_directories(test_gauss PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(test_gauss PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_gauss PRIVATE gridkit_core m)
add_test(NAME density_gauss COMMAND test_gauss)
set_tests_properties(density_gauss PROPERTIES TIMEOUT 300)

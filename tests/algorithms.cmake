# algorithms: the k-d tree, neighbourhood selection and the search-based
# algorithms against hand-checked values and brute force (no GDAL needed).
add_executable(test_algorithms ${CMAKE_CURRENT_LIST_DIR}/test_algorithms.c)
target_include_directories(test_algorithms PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_algorithms PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_algorithms PRIVATE gridkit_core)
add_test(NAME algorithms COMMAND test_algorithms)
set_tests_properties(algorithms PROPERTIES TIMEOUT 120)

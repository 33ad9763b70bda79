# gpu: the GPU backend against the CPU (tests/gpu/test_gpu.c), and the benchmark
# (tests/bench/bench_gpu.c). Neither links CUDA: both load the module at run
# time, so they build everywhere and the test reports "skipped" (exit 77)
# where no GPU is usable. Built next to gridkit_cuda.so, where the core looks.
add_executable(test_gpu ${CMAKE_CURRENT_LIST_DIR}/test_gpu.c)
target_link_libraries(test_gpu PRIVATE gridkit_core)
target_compile_definitions(test_gpu PRIVATE _POSIX_C_SOURCE=200809L)
target_include_directories(test_gpu PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
set_target_properties(test_gpu PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME gpu COMMAND test_gpu)
set_tests_properties(gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)


# SPDX-License-Identifier: MIT
# gpu: the GPU backend against the CPU (tests/gpu/test_gpu.c and a file per
# family, on gpu_harness.[ch]). It does not link CUDA: it loads the module at
# run time, so it builds everywhere and reports "skipped" (exit 77) where no
# GPU is usable. Built next to gridkit_cuda.so, where the core looks.
set(GK_GPU_TEST_SOURCES test_gpu.c gpu_harness.c test_gpu_idw_window.c test_gpu_search.c
    test_gpu_kriging.c test_gpu_global.c test_gpu_variogram.c test_gpu_linear.c
    test_gpu_ridges.c test_gpu_density.c test_gpu_crossval.c test_gpu_quadtree_order.c
    test_gpu_natural.c test_gpu_shepard.c
    test_gpu_polynomial.c test_gpu_rbf.c test_gpu_rst.c test_gpu_surface.c
    test_gpu_simulation.c test_gpu_indicator.c)
list(TRANSFORM GK_GPU_TEST_SOURCES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
add_executable(test_gpu ${GK_GPU_TEST_SOURCES})
target_link_libraries(test_gpu PRIVATE gridkit_core)
target_compile_definitions(test_gpu PRIVATE _POSIX_C_SOURCE=200809L)
target_include_directories(test_gpu PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
set_target_properties(test_gpu PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
gk_add_c_test(NAME gpu COMMAND test_gpu)
set_tests_properties(gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# a late start: the job begun on the CPU while the GPU starts, the GPU
# joining (or, without one, the cores taking the grid: bit for bit the CPU's)
add_executable(test_gpu_late ${CMAKE_CURRENT_LIST_DIR}/test_gpu_late.c)
target_link_libraries(test_gpu_late PRIVATE gridkit_core)
target_compile_definitions(test_gpu_late PRIVATE _POSIX_C_SOURCE=200809L)
target_include_directories(test_gpu_late PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
set_target_properties(test_gpu_late PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
gk_add_c_test(NAME gpu_late_uniform COMMAND test_gpu_late uniform)
gk_add_c_test(NAME gpu_late_lattice COMMAND test_gpu_late lattice)
set_tests_properties(gpu_late_uniform gpu_late_lattice PROPERTIES TIMEOUT 300)

# SPDX-License-Identifier: MIT
# variogram: model formulas and Bessel K against R/gstat numbers, gstat's lag
# classes on a hand-made set, every pair-search path against a naive loop,
# and fits against fit.variogram() on meuse (core only, no GDAL).
add_executable(test_variogram ${CMAKE_CURRENT_LIST_DIR}/test_variogram.c)
target_include_directories(test_variogram PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_variogram PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_variogram PRIVATE gridkit_core)
gk_add_c_test(NAME variogram COMMAND test_variogram)
set_tests_properties(variogram PROPERTIES TIMEOUT 120)

# candidate models, fit.kappa and trend residuals (gk_variogram_fit_best,
# gk_trend_residuals) against R/gstat numbers, and their bad input.
add_executable(test_variogram_best ${CMAKE_CURRENT_LIST_DIR}/test_variogram_best.c)
target_include_directories(test_variogram_best PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_compile_definitions(test_variogram_best PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(test_variogram_best PRIVATE gridkit_core)
gk_add_c_test(NAME variogram_best COMMAND test_variogram_best)
set_tests_properties(variogram_best PROPERTIES TIMEOUT 120)

# SPDX-License-Identifier: MIT
# gstat oracle: `gridkit variogram`, kriging, `gridkit cv` against gstat 2.1-0
# (tests/geostat/gstat/compare.py; references committed in tests/geostat/gstat/refs/, made by
# tests/geostat/gstat/make_refs.R; data in data/, made by tests/geostat/gstat/make_data.R).
# R is needed only to regenerate the references, never here.
if(GRIDKIT_WITH_GDAL)
  add_test(NAME gstat
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gstat/compare.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/gstat)
  set_tests_properties(gstat PROPERTIES TIMEOUT 900)
endif()
# Sequential Gaussian simulation against gstat's krige(nsim=) ensembles
# (tests/geostat/gstat/sim_compare.py; references made by tests/geostat/gstat/sim_refs.R).
if(GRIDKIT_WITH_GDAL)
  add_test(NAME gstat_simulation
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gstat/sim_compare.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/gstat_simulation)
  set_tests_properties(gstat_simulation PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()
# Indicator kriging against gstat's krige(I(z < c) ~ 1) (tests/geostat/gstat/ik_compare.py;
# references made by tests/geostat/gstat/ik_refs.R).
if(GRIDKIT_WITH_GDAL)
  add_test(NAME gstat_indicator
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gstat/ik_compare.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR}/data
                   ${CMAKE_BINARY_DIR}/test-work/gstat_indicator)
  set_tests_properties(gstat_indicator PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

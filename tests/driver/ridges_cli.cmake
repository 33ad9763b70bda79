# SPDX-License-Identifier: MIT
# `gridkit ridges` end to end (tests/driver/ridges_cli.py): GeoPackage, CSV,
# Shapefile, GeoJSON, --3d, the same bytes across runs and threads, bad
# input, and the plugin's GRIDKIT:ridges against the CLI.
if(GRIDKIT_WITH_GDAL)
  add_test(NAME ridges_cli
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/ridges_cli.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_BINARY_DIR}/gdalplugins
                   ${CMAKE_BINARY_DIR}/test-work/ridges_cli)
  set_tests_properties(ridges_cli PROPERTIES TIMEOUT 600)
endif()

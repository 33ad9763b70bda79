# SPDX-License-Identifier: MIT
# The GDAL plugin gdal_GRIDKIT.so, loaded through GDAL_DRIVER_PATH by GDAL's
# own programs and Python bindings, against the CLI (tests/driver/test_plugin.py).
# tests/driver/qgis_test.sh (QGIS 3.22 headless, qgis_process.bin) only with
# -DGRIDKIT_QGIS_TESTS=ON: it needs Debian's qgis packages.
if(GRIDKIT_WITH_GDAL)
  add_test(NAME plugin
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/test_plugin.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_BINARY_DIR}/gdalplugins
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/plugin)
  set_tests_properties(plugin PROPERTIES TIMEOUT 600)
  # the QGIS plugin without QGIS (plain Python): the algorithm list read from
  # gridkit, tags and short descriptions, metadata.txt, and the zip that
  # cmake/qgis.cmake's target qgis_plugin_zip writes
  set(_gk_qgis_zip_arg "")
  if(TARGET qgis_plugin_zip)
    set(_gk_qgis_zip_arg ${CMAKE_BINARY_DIR}/gridkit_provider.zip)
  endif()
  add_test(NAME qgis_algorithm_list
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/qgis_algorithm_list.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_SOURCE_DIR} ${_gk_qgis_zip_arg})

  option(GRIDKIT_QGIS_TESTS "Run the QGIS Processing test (needs qgis, python3-qgis)" OFF)
  if(GRIDKIT_QGIS_TESTS)
    add_test(NAME qgis
             COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/qgis_test.sh ${CMAKE_BINARY_DIR}
                     ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-work/qgis)
    set_tests_properties(qgis PROPERTIES TIMEOUT 600)
  endif()
endif()

# SPDX-License-Identifier: MIT
# Every command shown in README.md and docs/**/*.md (fenced sh and console
# blocks) run as written, in page order, with the outputs the console blocks
# show compared (tests/docs/run_examples.py: what runs, what is skipped and
# why, and the pages' conventions). gridkit is the build's; the GDAL programs
# and /usr/bin/python3 (osgeo, numpy) are the system's.
if(GRIDKIT_WITH_GDAL)
  add_test(NAME docs_examples
           COMMAND ${GRIDKIT_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run_examples.py
                   ${CMAKE_BINARY_DIR}/gridkit ${CMAKE_BINARY_DIR}/test-work/docs_examples
                   --root ${CMAKE_SOURCE_DIR})
  set_tests_properties(docs_examples PROPERTIES TIMEOUT 900)
endif()

# SPDX-License-Identifier: MIT
# The Python module (python/gridkit, docs/python.md): plain Python over
# libgridkit.so.0 through ctypes, installed where Debian's python3 finds
# modules (lib/python3/dist-packages under the prefix: /usr/lib/python3/
# dist-packages for the package python3-gridkit), with _install.py saying
# where the library lies relative to the package, so that an installed and
# moved tree still finds its own library. Included from CMakeLists.txt after
# cmake/shared_library.cmake.
set(GRIDKIT_PYTHON_DIR "lib/python3/dist-packages" CACHE PATH
  "Where cmake --install puts the Python package gridkit (relative: under the prefix)")
gk_install_full(_gk_pydir_full "${GRIDKIT_PYTHON_DIR}/gridkit")
file(RELATIVE_PATH _gk_py_to_lib "${_gk_pydir_full}" "${CMAKE_INSTALL_FULL_LIBDIR}")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/python/_install.py CONTENT
  "# SPDX-License-Identifier: MIT\n# Written by cmake --install (cmake/python.cmake): the library's folder relative to this one.\nLIBDIR_FROM_PACKAGE = \"@_gk_py_to_lib@\"\n" @ONLY)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/gridkit DESTINATION ${GRIDKIT_PYTHON_DIR}
  COMPONENT python FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES ${CMAKE_BINARY_DIR}/python/_install.py DESTINATION ${GRIDKIT_PYTHON_DIR}/gridkit
  COMPONENT python)

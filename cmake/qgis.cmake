# SPDX-License-Identifier: MIT
# The QGIS plugin (qgis/gridkit_provider, docs/plugin.md#qgis):
# - the target qgis_plugin_zip (part of ALL) writes build/gridkit_provider.zip,
#   the folder gridkit_provider/ at its root with the plugin's sources only
#   (no __pycache__), which QGIS's Plugins > Manage and Install Plugins >
#   Install from ZIP accepts;
# - `cmake --install` (component runtime: the package gridkit) puts the plugin
#   where QGIS finds plugins system-wide, <prefix>/share/qgis/python/plugins
#   (/usr/share/qgis/python/plugins/gridkit_provider for the package), with
#   _install.py saying where bin/ lies relative to it, so that the plugin finds
#   the gridkit of its own install.
# Included from CMakeLists.txt (once); plain files, no compiler needed.
include_guard(GLOBAL)
include(GNUInstallDirs)
set(_gk_qgis_src ${CMAKE_SOURCE_DIR}/qgis/gridkit_provider)
file(GLOB _gk_qgis_names CONFIGURE_DEPENDS RELATIVE ${_gk_qgis_src}
  ${_gk_qgis_src}/*.py ${_gk_qgis_src}/metadata.txt ${_gk_qgis_src}/*.png)
list(REMOVE_ITEM _gk_qgis_names _install.py)  # written by the install only
list(SORT _gk_qgis_names)
set(_gk_qgis_files "")
set(_gk_qgis_members "")
foreach(_f IN LISTS _gk_qgis_names)
  list(APPEND _gk_qgis_files ${_gk_qgis_src}/${_f})
  list(APPEND _gk_qgis_members gridkit_provider/${_f})
endforeach()

# The zip: the files copied to a fresh folder (nothing else that lies in the
# source folder, such as QGIS's __pycache__), archived in a fixed order with a
# fixed time, so the same sources give the same bytes.
set(_gk_qgis_stage ${CMAKE_BINARY_DIR}/qgis_plugin)
set(GRIDKIT_QGIS_ZIP ${CMAKE_BINARY_DIR}/gridkit_provider.zip)
add_custom_command(OUTPUT ${GRIDKIT_QGIS_ZIP}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${_gk_qgis_stage}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_gk_qgis_stage}/gridkit_provider
  COMMAND ${CMAKE_COMMAND} -E copy ${_gk_qgis_files} ${_gk_qgis_stage}/gridkit_provider
  COMMAND ${CMAKE_COMMAND} -E chdir ${_gk_qgis_stage}
          ${CMAKE_COMMAND} -E tar cf ${GRIDKIT_QGIS_ZIP}.tmp --format=zip
          "--mtime=2000-01-01 00:00:00 UTC" ${_gk_qgis_members}
  COMMAND ${CMAKE_COMMAND} -E rename ${GRIDKIT_QGIS_ZIP}.tmp ${GRIDKIT_QGIS_ZIP}
  DEPENDS ${_gk_qgis_files} ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "QGIS plugin zip: gridkit_provider.zip" VERBATIM)
add_custom_target(qgis_plugin_zip ALL DEPENDS ${GRIDKIT_QGIS_ZIP})

# The install: QGIS's system plugin folder under the prefix.
set(GRIDKIT_QGIS_PLUGIN_DIR "${CMAKE_INSTALL_DATADIR}/qgis/python/plugins" CACHE PATH
  "Where cmake --install puts the QGIS plugin gridkit_provider (relative: under the prefix)")
gk_install_full(_gk_qgis_plugin_full "${GRIDKIT_QGIS_PLUGIN_DIR}/gridkit_provider")
file(RELATIVE_PATH _gk_qgis_to_bin "${_gk_qgis_plugin_full}" "${CMAKE_INSTALL_FULL_BINDIR}")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/qgis/_install.py CONTENT
  "# SPDX-License-Identifier: MIT\n# Written by cmake --install (cmake/qgis.cmake): the gridkit program's folder relative to this plugin's.\nBINDIR_FROM_PLUGIN = \"@_gk_qgis_to_bin@\"\n" @ONLY)
install(FILES ${_gk_qgis_files} ${CMAKE_BINARY_DIR}/qgis/_install.py
  DESTINATION ${GRIDKIT_QGIS_PLUGIN_DIR}/gridkit_provider COMPONENT runtime)

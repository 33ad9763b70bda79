# SPDX-License-Identifier: MIT
# Threads under test, cheap enough for every build and the point of the
# sanitizer builds (scripts/ci-sanitizers.sh): the plugin's concurrent
# readers (the plugin linked in) and the CLI with the tile engine on several
# threads and the GPU warm-up thread (--device auto).
if(TARGET gridkit_gdal)
  # the plugin's own sources and definitions, whatever they become
  get_target_property(_gk_plugin_src gdal_GRIDKIT SOURCES)
  list(TRANSFORM _gk_plugin_src PREPEND ${CMAKE_SOURCE_DIR}/)
  add_executable(test_plugin_threads ${CMAKE_CURRENT_LIST_DIR}/test_plugin_threads.c
                                     ${_gk_plugin_src})
  target_compile_definitions(test_plugin_threads PRIVATE
    $<TARGET_PROPERTY:gdal_GRIDKIT,COMPILE_DEFINITIONS>)
  target_link_libraries(test_plugin_threads PRIVATE gridkit_gdal Threads::Threads)
  gk_add_c_test(NAME plugin_threads COMMAND test_plugin_threads ${CMAKE_SOURCE_DIR}/data)
  set_tests_properties(plugin_threads PROPERTIES TIMEOUT 300)

  set(_gk_tc ${CMAKE_CURRENT_BINARY_DIR}/cli_threads)
  add_test(NAME cli_threads
           COMMAND ${CMAKE_COMMAND} -E env GRIDKIT_DEVICE=auto
                   $<TARGET_FILE:gridkit> grid ${CMAKE_SOURCE_DIR}/data/meuse.gpkg -zfield zinc
                   -a invdist:power=2:max_points=30:radius=600 -outsize 400 380 --threads 4
                   -co TILED=YES -q ${_gk_tc}.tif)
  set_tests_properties(cli_threads PROPERTIES TIMEOUT 300)
  # --parts: the strips path (grid_strips.c), its computing thread a strip
  # ahead of the one written, the GPU warm-up thread before the points are
  # read; the default threads
  add_test(NAME cli_threads_parts
           COMMAND ${CMAKE_COMMAND} -E env GRIDKIT_DEVICE=auto
                   $<TARGET_FILE:gridkit> grid ${CMAKE_SOURCE_DIR}/data/meuse.gpkg -zfield zinc
                   -a invdist:power=2:max_points=30:radius=600 -outsize 400 1500
                   --parts ${_gk_tc}_parts -q ${_gk_tc}_parts.vrt)
  set_tests_properties(cli_threads_parts PROPERTIES TIMEOUT 300)
  gk_sanitize(asan cli_threads cli_threads_parts NEEDS gridkit)
  gk_sanitize(tsan plugin_threads cli_threads cli_threads_parts NEEDS gridkit)
endif()

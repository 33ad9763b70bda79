# SPDX-License-Identifier: MIT
# Man pages for gridkit and each command, made from their --help at build
# time (make_man.cmake), the guides in docs/ and bash completion
# (scripts/gridkit-completion.bash), installed with the command.
set(GK_MAN_PAGES "")
foreach(cmd "" grid variogram cv ridges)
  if(cmd STREQUAL "")
    set(page gridkit.1.gz)
    set(summary "scattered points to rasters, a faster gdal_grid")
  else()
    set(page gridkit-${cmd}.1.gz)
    set(summary_grid "grid points into a raster (gdal_grid's arguments)")
    set(summary_variogram "experimental variogram and model fit")
    set(summary_cv "cross-validation of a gridding algorithm")
    set(summary_ridges "ridge lines of a point cloud")
    set(summary "${summary_${cmd}}")
  endif()
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -DGK=$<TARGET_FILE:gridkit> -DCMD=${cmd} -DSUMMARY=${summary}
            -DVERSION=${PROJECT_VERSION} -DOUT=${CMAKE_BINARY_DIR}/man/${page}
            -P ${CMAKE_SOURCE_DIR}/cmake/make_man.cmake
    DEPENDS gridkit ${CMAKE_SOURCE_DIR}/cmake/make_man.cmake VERBATIM)
  list(APPEND GK_MAN_PAGES ${CMAKE_BINARY_DIR}/man/${page})
endforeach()
add_custom_target(gridkit_man ALL DEPENDS ${GK_MAN_PAGES})
install(FILES ${GK_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
install(FILES ${CMAKE_SOURCE_DIR}/scripts/gridkit-completion.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gridkit COMPONENT runtime)
file(GLOB GK_DOC_PAGES ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${GK_DOC_PAGES} ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}
  COMPONENT runtime)

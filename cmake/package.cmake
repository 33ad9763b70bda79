# Debian packages, one per part (scripts/make-deb.sh: cpack in a build whose
# prefix is /usr): gridkit (the command, the GDAL plugin in GDAL's own plugin
# folder, libgridkit.so, man pages, bash completion, the guides), gridkit-cuda
# and gridkit-mpi (the optional modules, each on top of gridkit) and
# libgridkit-dev (headers, pkg-config and CMake files, the static core).
# Dependencies on Debian's libraries come from dpkg-shlibdeps.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gridkit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "The gridkit developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "scattered points to rasters and lines, fast: gdal_grid's algorithms, kriging, densities, ridges")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME gridkit)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "scattered points to rasters, a faster gdal_grid\n gridkit grid takes gdal_grid's arguments and gives the same raster;\n also kriging (gstat's numbers), kernel densities and ridge lines, on CPU\n cores, GPUs (gridkit-cuda) and MPI ranks (gridkit-mpi). Includes the\n GDAL plugin (the GRIDKIT driver) and the C library libgridkit.so.")
set(_gk_same "gridkit (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME gridkit-cuda)
set(CPACK_DEBIAN_CUDA_DESCRIPTION "gridkit's GPU module (CUDA)\n Loaded by gridkit when a job asks for a GPU; needs the NVIDIA driver\n (and, for global kriging, CUDA's cuSOLVER and cuBLAS).")
# CUDA's libraries are not Debian packages: dpkg-shlibdeps cannot name them
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "${_gk_same}")
set(CPACK_DEBIAN_MPI_PACKAGE_NAME gridkit-mpi)
set(CPACK_DEBIAN_MPI_DESCRIPTION "gridkit's MPI module (Open MPI)\n mpirun -n N gridkit grid ... computes one raster on N processes.")
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "${_gk_same}")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libgridkit-dev)
set(CPACK_DEBIAN_DEV_DESCRIPTION "gridkit's C library: headers, pkg-config and CMake files")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_gk_same}")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
get_cmake_property(_gk_components COMPONENTS)
set(CPACK_COMPONENTS_ALL ${_gk_components})
include(CPack)

# SPDX-License-Identifier: MIT
# Debian packages, one per part (scripts/make-deb.sh: cpack in a build whose
# prefix is /usr): gridkit (the command, the GDAL plugin in GDAL's own plugin
# folder, libgridkit.so, man pages, bash completion, the guides), gridkit-cuda
# and gridkit-mpi (the optional modules, each on top of gridkit) and
# libgridkit-dev (headers, pkg-config and CMake files, the static core);
# python3-gridkit (the Python module, cmake/python.cmake).
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
# the QGIS provider (cmake/qgis.cmake) is of use with QGIS only
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "qgis")
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
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-gridkit)
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "gridkit for Python: numpy arrays in and out\n import gridkit; gridkit.grid(x, y, z, 'invdistnn:radius=400', shape=(ny, nx)):\n the bytes gridkit grid gives, without files; also variogram, fit, cv and\n ridges. ctypes over libgridkit.so.0.")
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "${_gk_same}, python3, python3-numpy")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
# plain Python: nothing for dpkg-shlibdeps to read
set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
# the bytecode python3 leaves beside the package goes with it (py3clean, as
# Debian's own Python packages do)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/python/deb/prerm CONTENT [=[#!/bin/sh
set -e
if command -v py3clean >/dev/null 2>&1; then
    py3clean -p python3-gridkit
else
    rm -rf "@_gk_pydir_full@/__pycache__"
fi
]=] @ONLY)
file(CHMOD ${CMAKE_BINARY_DIR}/python/deb/prerm PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
  GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/python/deb/prerm)
get_cmake_property(_gk_components COMPONENTS)
set(CPACK_COMPONENTS_ALL ${_gk_components})
# each package's /usr/share/doc/<package>/copyright (Debian's policy), and
# the licence and NEWS beside the guides
foreach(c ${_gk_components})
  string(TOUPPER ${c} _gk_uc)
  if(CPACK_DEBIAN_${_gk_uc}_PACKAGE_NAME)
    install(FILES ${CMAKE_SOURCE_DIR}/cmake/copyright
      DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_DEBIAN_${_gk_uc}_PACKAGE_NAME} COMPONENT ${c})
  endif()
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE ${CMAKE_SOURCE_DIR}/NEWS DESTINATION ${CMAKE_INSTALL_DOCDIR}
  COMPONENT runtime)
include(CPack)

# SPDX-License-Identifier: MIT
# mpirun -n 1/2/3 gridkit ... against the plain run, --parts, and ranks that
# fail or are killed (tests/driver/mpi_cli.sh). Needs Open MPI's mpirun and
# the MPI module; without them the test is skipped with the reason.
if(TARGET gridkit)
  find_program(GK_MPIRUN NAMES mpirun mpiexec)
  if(GK_MPIRUN AND TARGET gridkit_mpi)
    add_test(NAME mpi
             COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/mpi_cli.sh
                     $<TARGET_FILE:gridkit> ${CMAKE_SOURCE_DIR}/data
                     ${CMAKE_BINARY_DIR}/test-work/mpi ${GK_MPIRUN})
    set_tests_properties(mpi PROPERTIES TIMEOUT 1200 RUN_SERIAL TRUE
                         FAIL_REGULAR_EXPRESSION "FAIL ")
  else()
    add_test(NAME mpi COMMAND ${CMAKE_COMMAND} -E echo
             "mpi: skipped: no mpirun or no MPI module (apt-get install openmpi-bin libopenmpi-dev)")
    set_tests_properties(mpi PROPERTIES SKIP_REGULAR_EXPRESSION "skipped")
  endif()
endif()

# SPDX-License-Identifier: MIT
# libFuzzer targets (tests/fuzz/), off by default: they need clang and the
# whole build instrumented, which tests/fuzz/run_fuzzers.sh sets up in its own
# build folder. Each target's corpus (seeds and past findings) is replayed as
# a test, so a finding once fixed stays fixed.
option(GRIDKIT_FUZZ "Build the libFuzzer targets (clang; see tests/fuzz/run_fuzzers.sh)" OFF)
if(GRIDKIT_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GRIDKIT_FUZZ=ON needs clang (libFuzzer)")
  endif()
  set(_gk_fuzz_dir ${CMAKE_CURRENT_LIST_DIR})
  foreach(t algorithm_string grid_args job_string job_file xyz vmodel_json ridges_string)
    add_executable(fuzz_${t} ${_gk_fuzz_dir}/fuzz_${t}.c)
    target_compile_definitions(fuzz_${t} PRIVATE _GNU_SOURCE)
    target_link_libraries(fuzz_${t} PRIVATE gridkit_gdal)
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    set_target_properties(fuzz_${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
    add_test(NAME fuzz_corpus_${t} COMMAND fuzz_${t} -runs=0 ${_gk_fuzz_dir}/corpus/${t})
  endforeach()
endif()

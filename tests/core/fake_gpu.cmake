# SPDX-License-Identifier: MIT
# The core's GPU side on machines without a GPU: a stand-in module
# (fake_gpu.c, loaded through GRIDKIT_GPU_MODULE) behind the real command,
# its bytes against the CPU's, each failure's message and fallback
# (fake_gpu.sh).
add_library(gk_fake_gpu MODULE ${CMAKE_CURRENT_LIST_DIR}/fake_gpu.c)
target_include_directories(gk_fake_gpu PRIVATE ${CMAKE_SOURCE_DIR}/algorithms)
target_link_libraries(gk_fake_gpu PRIVATE m)
set_target_properties(gk_fake_gpu PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden)
if(GRIDKIT_WITH_GDAL)
  find_program(GK_BASH bash REQUIRED)
  add_test(NAME fake_gpu
           COMMAND ${GK_BASH} ${CMAKE_CURRENT_LIST_DIR}/fake_gpu.sh ${CMAKE_BINARY_DIR}/gridkit
                   ${CMAKE_SOURCE_DIR}/data ${CMAKE_BINARY_DIR}/test-work/fake_gpu
                   $<TARGET_FILE:gk_fake_gpu>)
  set_tests_properties(fake_gpu PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAIL ")
endif()

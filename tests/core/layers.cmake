# layers: every #include follows the folders' one direction of dependency
# (tests/core/check_layers.py; docs/architecture.md).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME layers COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/check_layers.py)
endif()

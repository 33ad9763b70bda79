# SPDX-License-Identifier: MIT
# layers: every #include follows the folders' one direction of dependency
# (tests/core/check_layers.py; docs/architecture.md).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME layers COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/check_layers.py)
endif()
# methods: no code outside a method's family names its kind (the registry is the only switch),
# and docs/architecture.md's method table lists every line of methods.def
# (tests/core/check_methods.py).
if(Python3_FOUND)
  add_test(NAME methods COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/check_methods.py)
endif()

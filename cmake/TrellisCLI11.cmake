# CLI11 (header-only; Debian's libcli11-dev, which cmake/deps/setup_deps.sh
# installs) reads the options of the trellis command: apps/ and the fuzz
# target of `trellis solve`'s options (unit_tests/fuzz) need it. Its CMake
# package first (Debian ships one: CLI11::CLI11), else its header alone
# (CLI/CLI.hpp) as that target. Version 2.1 or newer.
set(_trellis_cli11_min 2.1)
find_package(CLI11 ${_trellis_cli11_min} CONFIG QUIET)
if(TARGET CLI11::CLI11)
  message(STATUS "Trellis: CLI11 ${CLI11_VERSION} (${CLI11_DIR})")
else()
  find_path(TRELLIS_CLI11_INCLUDE_DIR CLI/CLI.hpp DOC "the folder that holds CLI11's CLI/CLI.hpp")
  set(_trellis_cli11_version "")
  if(TRELLIS_CLI11_INCLUDE_DIR AND EXISTS "${TRELLIS_CLI11_INCLUDE_DIR}/CLI/Version.hpp")
    file(STRINGS "${TRELLIS_CLI11_INCLUDE_DIR}/CLI/Version.hpp" _trellis_cli11_line
         REGEX "^#define CLI11_VERSION \"[0-9.]+\"")
    string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" _trellis_cli11_version "${_trellis_cli11_line}")
  endif()
  if(NOT TRELLIS_CLI11_INCLUDE_DIR OR _trellis_cli11_version VERSION_LESS _trellis_cli11_min)
    if(TRELLIS_CLI11_INCLUDE_DIR)
      set(_trellis_cli11_found "found only version '${_trellis_cli11_version}' in ${TRELLIS_CLI11_INCLUDE_DIR}")
    else()
      set(_trellis_cli11_found "not found")
    endif()
    message(FATAL_ERROR
      "Trellis: CLI11 ${_trellis_cli11_min} or newer ${_trellis_cli11_found}. The trellis command reads its "
      "options with CLI11 (header-only). Install Debian's libcli11-dev (`apt-get install libcli11-dev`; "
      "cmake/deps/setup_deps.sh does), or point CMake at one: -DCLI11_DIR=<folder of CLI11Config.cmake> "
      "or -DTRELLIS_CLI11_INCLUDE_DIR=<folder holding CLI/CLI.hpp>. Without it, configure with "
      "-DTRELLIS_ENABLE_APPS=OFF -DTRELLIS_ENABLE_TESTS=OFF (no command, no tests).")
  endif()
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${TRELLIS_CLI11_INCLUDE_DIR}")
  message(STATUS "Trellis: CLI11 ${_trellis_cli11_version} (${TRELLIS_CLI11_INCLUDE_DIR}/CLI/CLI.hpp)")
endif()

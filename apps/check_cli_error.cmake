# Runs the trellis command once and checks how it ended (bad_input_tests.cmake):
#   cmake -DTRELLIS=<exe> -DARGS=<args separated by '|'> -DRC=<exit code>
#         -DREGEX=<regular expression the output must match> -P check_cli_error.cmake
# Output means stdout and stderr together. Whatever RC is, the output must not
# hold an internal error, a Kokkos abort or a C++ exception message: bad input
# is named by the command itself.
foreach(_var TRELLIS ARGS RC REGEX)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_cli_error.cmake: -D${_var}= is required")
  endif()
endforeach()
string(REPLACE "|" ";" _args "${ARGS}")
execute_process(COMMAND ${TRELLIS} ${_args} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err TIMEOUT 120)
set(_all "${_out}${_err}")
string(REPLACE ";" " " _shown "${_args}")
if(NOT "${_rc}" STREQUAL "${RC}")
  message(FATAL_ERROR "trellis ${_shown}: exit code ${_rc}, expected ${RC}\n--- output ---\n${_all}")
endif()
if(NOT _all MATCHES "${REGEX}")
  message(FATAL_ERROR "trellis ${_shown}: output does not match '${REGEX}'\n--- output ---\n${_all}")
endif()
foreach(_bad "internal error" "terminate called" "Kokkos::abort" "Segmentation" "std::")
  string(FIND "${_all}" "${_bad}" _at)
  if(NOT _at EQUAL -1)
    message(FATAL_ERROR "trellis ${_shown}: output holds '${_bad}'\n--- output ---\n${_all}")
  endif()
endforeach()
message(STATUS "trellis ${_shown}: exit ${_rc}, output matches '${REGEX}'")

# ctest cli_solve_history: runs `trellis solve ... --history DIR/history.csv`
# and fails unless it names DIR/history.svg as its plot and that file is a
# non-empty SVG with a data polyline, closed, with no NaN/Inf spelled out.
#   cmake -DTRELLIS=<trellis binary> -DDIR=<output dir> -P check_history_plot.cmake
set(csv "${DIR}/history.csv")
set(svg "${DIR}/history.svg")
file(REMOVE "${csv}" "${svg}")  # a stale plot must not pass
execute_process(COMMAND "${TRELLIS}" solve layered3d:24x24x12 --solver gmres --precond ilu0 --compare
                        --history "${csv}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 AND NOT rc EQUAL 3)  # 3: some run did not converge, its history is still plotted
  message(FATAL_ERROR "trellis solve exited with ${rc}")
endif()
if(NOT out MATCHES "plot: [^\n]*history\\.svg")
  message(FATAL_ERROR "trellis solve did not print 'plot: ...history.svg'")
endif()
if(NOT EXISTS "${svg}")
  message(FATAL_ERROR "${svg} was not written")
endif()
file(READ "${svg}" text)
if(text STREQUAL "")
  message(FATAL_ERROR "${svg} is empty")
endif()
foreach(needle "<?xml" "<svg " "</svg>" "<polyline")
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${svg} lacks '${needle}'")
  endif()
endforeach()
if(NOT text MATCHES "</svg>\n$")
  message(FATAL_ERROR "${svg} does not end with </svg>")
endif()
string(TOLOWER "${text}" lower)
if(lower MATCHES "[\" ,(-](nan|inf)")
  message(FATAL_ERROR "${svg} spells out a non-finite number: ${CMAKE_MATCH_0}")
endif()
# Where python3 is at hand, a real XML parser checks the whole file.
find_program(python3 python3)
if(python3)
  execute_process(COMMAND "${python3}" -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "${svg}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${svg} is not well-formed XML: ${err}")
  endif()
endif()
message("svg check: ${svg} ok")

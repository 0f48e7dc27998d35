# ctest cli_solve_history: runs `trellis solve ... --history DIR/history.csv`
# twice and fails unless each names DIR/history.svg as its plot and:
#  - the CSV has the columns method,iteration,relative_residual,seconds, with
#    a wall time on every row;
#  - the SVG is non-empty, closed, well-formed, with no NaN/Inf spelled out,
#    and has both panels (the axis titles "iteration" and "wall time (s)"),
#    for every run in the CSV a legend entry naming it, and a group of
#    markers (class="marker SHAPE") in each panel, none over 40 markers;
#  - every run whose residuals equal an earlier run's, value for value (the
#    CSV gives each in its shortest exact form), is noted in the legend as
#    "NAME (same curve as EARLIER)". The second run must have such a pair:
#    --precond none against --compare's jacobi on a 5-point Laplacian (its
#    diagonal is 4, and scaling by a power of two is exact: the two
#    preconditioned BiCGSTAB iterations have the same residuals, bit for bit).
#   cmake -DTRELLIS=<trellis binary> -DDIR=<output dir> -P check_history_plot.cmake
set(csv "${DIR}/history.csv")
set(svg "${DIR}/history.svg")

# The XML text of a label, as the plot escapes it.
function(xml_escape out text)
  string(REPLACE "&" "&amp;" text "${text}")
  string(REPLACE "<" "&lt;" text "${text}")
  string(REPLACE ">" "&gt;" text "${text}")
  string(REPLACE "\"" "&quot;" text "${text}")
  string(REPLACE "'" "&apos;" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# check_history(NEED_SAME_CURVE ARG...): runs trellis solve ARG... --history, checks the files.
function(check_history need_same_curve)
  file(REMOVE "${csv}" "${svg}")  # a stale plot must not pass
  execute_process(COMMAND "${TRELLIS}" solve ${ARGN} --history "${csv}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 3)  # 3: some run did not converge, its history is still plotted
    message(FATAL_ERROR "trellis solve exited with ${rc}")
  endif()
  if(NOT out MATCHES "plot: [^\n]*history\\.svg")
    message(FATAL_ERROR "trellis solve did not print 'plot: ...history.svg'")
  endif()
  foreach(file "${csv}" "${svg}")
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "${file} was not written")
    endif()
  endforeach()
  file(READ "${svg}" text)
  if(text STREQUAL "")
    message(FATAL_ERROR "${svg} is empty")
  endif()
  foreach(needle "<?xml" "<svg " "</svg>" "<polyline" ">iteration<" ">wall time (s)<" "class=\"marker ")
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
  if(text MATCHES "no wall times recorded")
    message(FATAL_ERROR "${svg}: the time panel has no data")
  endif()

  # The CSV: its header, a time on every row, and each run's residual column.
  file(STRINGS "${csv}" rows)
  list(GET rows 0 header)
  if(NOT header STREQUAL "method,iteration,relative_residual,seconds")
    message(FATAL_ERROR "${csv}: header '${header}', expected 'method,iteration,relative_residual,seconds'")
  endif()
  list(REMOVE_AT rows 0)
  set(methods "")
  foreach(row IN LISTS rows)
    if(NOT row MATCHES "^([^,]+),([0-9]+),([^,]+),([0-9][0-9.e+-]*)$")
      message(FATAL_ERROR "${csv}: row '${row}' is not method,iteration,residual,seconds")
    endif()
    set(method "${CMAKE_MATCH_1}")
    string(MAKE_C_IDENTIFIER "${method}" id)
    if(NOT DEFINED residuals_${id})
      list(APPEND methods "${method}")
      set(residuals_${id} "")
    endif()
    string(APPEND residuals_${id} "${CMAKE_MATCH_3} ")
  endforeach()
  list(LENGTH methods count)
  if(count EQUAL 0)
    message(FATAL_ERROR "${csv} holds no run")
  endif()

  # The legend: an entry per run, naming it, and the "same curve" notes.
  string(REGEX MATCHALL "<g class=\"legend-entry\">" entries "${text}")
  list(LENGTH entries entry_count)
  if(NOT entry_count EQUAL count)
    message(FATAL_ERROR "${svg}: ${entry_count} legend entries for ${count} runs (${methods})")
  endif()
  set(same_pairs 0)
  set(earlier "")
  foreach(method IN LISTS methods)
    string(MAKE_C_IDENTIFIER "${method}" id)
    xml_escape(name "${method}")
    set(note "")
    foreach(before IN LISTS earlier)
      string(MAKE_C_IDENTIFIER "${before}" before_id)
      if(note STREQUAL "" AND residuals_${id} STREQUAL residuals_${before_id})
        xml_escape(before_name "${before}")
        set(note " (same curve as ${before_name})")
        math(EXPR same_pairs "${same_pairs} + 1")
      endif()
    endforeach()
    string(FIND "${text}" ">${name}${note}<" at)
    if(at EQUAL -1 AND note STREQUAL "")  # not equal bit for bit, perhaps to 6 digits
      string(FIND "${text}" ">${name} (same curve as " at)
      if(NOT at EQUAL -1)
        string(SUBSTRING "${text}" ${at} 300 entry)
        if(NOT entry MATCHES "^[^<]*, to 6 digits\\)<")
          set(at -1)
        endif()
      endif()
    endif()
    if(at EQUAL -1)
      message(FATAL_ERROR "${svg}: no legend entry '${name}${note}'")
    endif()
    list(APPEND earlier "${method}")
  endforeach()
  if(need_same_curve AND same_pairs EQUAL 0)
    message(FATAL_ERROR "${csv}: no two runs have the same residuals; this case needs a pair (see the header)")
  endif()

  # Markers: a group per run and panel, each of 1 to 40 markers.
  string(REPLACE ";" "," flat "${text}")  # no list separators in what is split below
  string(REGEX MATCHALL "<g class=\"markers\"[^\n]*\n([^\n]*class=\"marker [^\n]*\n)*</g>" groups "${flat}")
  list(LENGTH groups group_count)
  math(EXPR expected "2 * ${count}")
  if(group_count LESS expected)
    message(FATAL_ERROR "${svg}: ${group_count} marker groups, expected one per run and panel (${expected})")
  endif()
  foreach(group IN LISTS groups)
    string(REGEX MATCHALL "class=\"marker " markers "${group}")
    list(LENGTH markers n)
    if(n EQUAL 0 OR n GREATER 40)
      message(FATAL_ERROR "${svg}: a series has ${n} markers in a panel (1 to 40 expected)")
    endif()
  endforeach()

  # Where python3 is at hand, a real XML parser checks the whole file.
  find_program(python3 python3)
  if(python3)
    execute_process(COMMAND "${python3}" -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "${svg}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${svg} is not well-formed XML: ${err}")
    endif()
  endif()
  message("svg check: ${svg} ok (${count} runs, ${group_count} marker groups, ${same_pairs} same-curve notes)")
endfunction()

check_history(FALSE layered3d:24x24x12 --solver gmres --precond ilu0 --compare)
check_history(TRUE lap2d5:16x16 --precond none --compare --repeat 1)

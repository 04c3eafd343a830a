# What each folder may not include, checked over its sources as text: for the folders whose
# libraries link one that sees more (report/ links the engine, which sees generators/ and
# output/), the include roots alone cannot refuse it. Read at configure time by CMakeLists.txt,
# and run again by the test Layering.Includes (cmake -DFIZZGEN_SOURCE_DIR=... -P this file), so an
# include added after configuring fails the suite too.
#   verify/    the independent judge: nothing of the generators, nor of the engine that ties them
#   report/    the engine's counters, results and run policy, never generators/ or output/ itself
#   parse/     values read from text: nothing of the project
#   consumer/  the reading end: output's seam, nothing of the engine or the generators
#   streams/   the generating commands: generators, engine and report/, nothing of the other commands
#   cli/       the front end: parses and hands on, so no generators/, output/ or pipeline/ of its own
set(fizzgen_forbidden_includes
    "verify:generators|engine|report|consumer|bench|cli"
    "report:generators|output|verify|bench|cli"
    "parse:generators|output|engine|pipeline|verify|report|consumer|bench|cli"
    "consumer:generators|engine|pipeline|verify|report|bench|cli"
    "streams:output|pipeline|verify|consumer|bench|cli"
    "cli:generators|output|pipeline")

function(fizzgen_check_includes source_dir)
  set(problems "")
  foreach(rule IN LISTS fizzgen_forbidden_includes)
    string(REPLACE ":" ";" rule "${rule}")
    list(GET rule 0 folder)
    list(GET rule 1 forbidden)
    file(GLOB sources ${source_dir}/${folder}/*.cpp ${source_dir}/${folder}/*.hpp)
    foreach(src IN LISTS sources)
      file(STRINGS ${src} bad REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<](${forbidden})/")
      foreach(line IN LISTS bad)
        string(APPEND problems "\n  ${src}: ${line} (${folder}/ may not include ${forbidden})")
      endforeach()
    endforeach()
  endforeach()
  if(problems)
    message(FATAL_ERROR "layering: includes across the folders' rules (HACKING.md):${problems}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  fizzgen_check_includes(${FIZZGEN_SOURCE_DIR})
endif()

# The prose and examples at the end of each --help page are text files, docs/help/<command>.txt
# (fizzgen-morse-encode.txt is `fizzgen morse encode`), so that they read as they print and can be
# edited without touching code. Configuring turns them into one header of string constants,
# <build>/generated/help_text.hpp (namespace fizzgen::cli::footer, fizzgen_morse_encode and so on),
# and configures again when one changes.
function(fizzgen_help_text target)
  set(dir ${PROJECT_SOURCE_DIR}/docs/help)
  file(GLOB pages CONFIGURE_DEPENDS ${dir}/*.txt)
  list(SORT pages)
  set(body "#pragma once\n// Generated from docs/help/*.txt by cmake/help_text.cmake: edit those.\n\n")
  string(APPEND body "namespace fizzgen::cli::footer {\n\n")
  foreach(page IN LISTS pages)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${page})
    file(READ ${page} text)
    string(REGEX REPLACE "\n$" "" text "${text}")
    get_filename_component(name ${page} NAME_WE)
    string(REPLACE "-" "_" name "${name}")
    string(APPEND body "inline constexpr char const* ${name} = R\"help(${text})help\";\n\n")
  endforeach()
  string(APPEND body "}  // namespace fizzgen::cli::footer\n")
  set(out ${PROJECT_BINARY_DIR}/generated)
  file(WRITE ${out}/help_text.hpp.new "${body}")
  configure_file(${out}/help_text.hpp.new ${out}/help_text.hpp COPYONLY)  # rewritten only on change
  target_include_directories(${target} PRIVATE ${out})
endfunction()

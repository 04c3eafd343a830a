# What `cmake --install` puts besides the binary, and the Debian package `cpack` makes of it:
#   bin/fizzgen (stripped in the package), share/man/man1/fizzgen.1.gz,
#   share/bash-completion/completions/fizzgen, share/fizzgen/plot.sh (bench/plot.sh),
#   share/doc/fizzgen/copyright and changelog.gz (packaging/debian/).
# Compressed as Debian policy asks: gzip -9n, so that the archive carries no name or time stamp.
find_program(FIZZGEN_GZIP gzip REQUIRED)
set(fizzgen_gz_dir ${PROJECT_BINARY_DIR}/packaging)
set(fizzgen_man_gz ${fizzgen_gz_dir}/fizzgen.1.gz)
set(fizzgen_changelog_gz ${fizzgen_gz_dir}/changelog.gz)
add_custom_command(OUTPUT ${fizzgen_man_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${fizzgen_gz_dir}
  COMMAND sh -c "'${FIZZGEN_GZIP}' -9n -c '${PROJECT_SOURCE_DIR}/docs/fizzgen.1' > '${fizzgen_man_gz}'"
  DEPENDS ${PROJECT_SOURCE_DIR}/docs/fizzgen.1 VERBATIM)
add_custom_command(OUTPUT ${fizzgen_changelog_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${fizzgen_gz_dir}
  COMMAND sh -c "'${FIZZGEN_GZIP}' -9n -c '${PROJECT_SOURCE_DIR}/packaging/debian/changelog' > '${fizzgen_changelog_gz}'"
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog VERBATIM)
add_custom_target(fizzgen_package_files ALL DEPENDS ${fizzgen_man_gz} ${fizzgen_changelog_gz})

install(FILES ${fizzgen_man_gz} DESTINATION share/man/man1)
install(FILES ${PROJECT_SOURCE_DIR}/docs/fizzgen.bash-completion DESTINATION share/bash-completion/completions
        RENAME fizzgen)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/bench/plot.sh DESTINATION share/fizzgen)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${fizzgen_changelog_gz} DESTINATION share/doc/fizzgen)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fizzgen)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "fizzgen authors <fizzgen@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "fizzgen authors <fizzgen@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "FizzBuzz, yes and Morse streams into a pipe at memory speed")
# Lines of at most 80 columns: dpkg shows them as they are.
set(CPACK_PACKAGE_DESCRIPTION "fizzgen writes FizzBuzz (any start, any rules), GNU yes lines or Morse code
into a pipe with vmsplice on every allowed core, and never emits a wrong byte
whoever reads the pipe. It also verifies such streams (fizzgen check), consumes
and measures them (fizzgen sink, fizzgen bench); /usr/share/fizzgen/plot.sh
draws the bench results with gnuplot.")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The libraries the binary links (ldd), by the Debian 12 packages that ship them (dpkg -S); the
# versions are those of the newest symbols it uses (GLIBC_2.34, GLIBCXX_3.4.29 = GCC 11).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1, libstdc++6 (>= 11), libtbb12, libhwloc15")
# pv for the README's examples; gnuplot-nox for /usr/share/fizzgen/plot.sh.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pv, gnuplot-nox")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_INSTALL_DIRECTORY fizzgen)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)

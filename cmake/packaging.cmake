# What `cmake --install` puts besides the binary, and the Debian package `cpack` makes of it:
#   bin/fizzgen, share/man/man1/fizzgen.1, share/bash-completion/completions/fizzgen
install(FILES ${PROJECT_SOURCE_DIR}/docs/fizzgen.1 DESTINATION share/man/man1)
install(FILES ${PROJECT_SOURCE_DIR}/docs/fizzgen.bash-completion DESTINATION share/bash-completion/completions
        RENAME fizzgen)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fizzgen)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "fizzgen maintainers <fizzgen@localhost>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "fizzgen maintainers <fizzgen@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "FizzBuzz, yes and Morse streams into a pipe at memory speed, on every core")
set(CPACK_PACKAGE_DESCRIPTION "fizzgen writes FizzBuzz (any start, any rules), GNU yes lines or Morse code into a
pipe with vmsplice on every allowed core, and never emits a wrong byte whoever reads the pipe. It
also verifies such streams (fizzgen check), consumes and measures them (fizzgen sink, fizzgen bench).")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The libraries the binary links (ldd), by the Debian 12 packages that ship them (dpkg -S); the
# versions are those of the newest symbols it uses (GLIBC_2.34, GLIBCXX_3.4.29 = GCC 11).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1, libstdc++6 (>= 11), libtbb12, libhwloc15")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pv, gnuplot-nox")
set(CPACK_PACKAGE_INSTALL_DIRECTORY fizzgen)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)

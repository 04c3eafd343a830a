// Runs a program with transparent huge pages disabled for it (prctl PR_SET_THP_DISABLE, inherited
// across exec), as on a machine where huge pages are unavailable.
//
//   no_thp_exec PROGRAM [ARG...]

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: no_thp_exec PROGRAM [ARG...]\n");
    return 2;
  }
  if (::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
    std::fprintf(stderr, "no_thp_exec: prctl(PR_SET_THP_DISABLE): %s\n", std::strerror(errno));
    return 125;
  }
  ::execvp(argv[1], argv + 1);
  std::fprintf(stderr, "no_thp_exec: %s: %s\n", argv[1], std::strerror(errno));
  return 127;
}

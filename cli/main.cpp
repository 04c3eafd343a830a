#include "cli/app.hpp"

int main(int argc, char** argv) { return fizzgen::cli::main(argc, argv); }

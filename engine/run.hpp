#pragma once
// The engine: T workers fill chunks i, i+T, i+2T... into their own buffers and take turns handing
// them to the sink, so chunk i always reaches the output before chunk i+1.

#include <cstdint>
#include <optional>
#include <string>

#include "generators/generator.hpp"
#include "output/sink.hpp"

namespace fizzgen {

struct run_options {
  unsigned threads = 1;                      ///< workers, >= 1
  std::optional<std::uint64_t> byte_limit;   ///< stop after exactly this many bytes (may cut a line)
  bool pin = true;                           ///< pin worker w to the w-th allowed CPU
  unsigned buffers_per_worker = 2;           ///< >= 1; 2 lets a worker fill while its last chunk drains
};

struct run_report {
  std::uint64_t bytes = 0;
  double seconds = 0;
  emit_status status = emit_status::ok;  ///< reader_gone: the reader closed the pipe
  std::string error;                     ///< set when status is failed
  unsigned threads = 0;
  unsigned pinned = 0;  ///< workers that were pinned to a CPU
};

/// Streams gen into out until the generator ends, the byte limit is reached, the reader goes away
/// or the output fails.
run_report run(generator const& gen, sink& out, run_options const& options);

}  // namespace fizzgen

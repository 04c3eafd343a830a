#pragma once
// What vmsplice does on this kernel, found by trying it rather than by reading the version: today
// it hands the pipe references to our pages; a series queued for Linux 7.2 makes it copy.

namespace fizzgen {

enum class vmsplice_kind {
  shares,  ///< the pipe references our pages: rewriting a buffer can change bytes not yet read
  copies,  ///< the pipe got a copy: buffers are free again as soon as vmsplice returns
  broken,  ///< vmsplice into a private pipe failed: do not use it
};

/// Splices one page into a private pipe, changes the page, reads the pipe back. Once per process.
vmsplice_kind probe_vmsplice() noexcept;

/// The probe itself, uncached (tests run it through the sys seam).
vmsplice_kind run_vmsplice_probe() noexcept;

char const* to_string(vmsplice_kind k) noexcept;

}  // namespace fizzgen

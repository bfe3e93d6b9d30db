// Start-up tuning of the C library's heap for a short-lived compiler process. On the VMs pypto is
// measured on, a first touch of a fresh heap page costs ~10 µs (a minor fault), and a small
// program's compile touches ~120 of them: a third of its run time. prefault_heap() maps the
// first MiB of the heap in one call (MADV_POPULATE_WRITE, Linux >= 5.14; a no-op elsewhere) and
// tells malloc to keep freed memory instead of returning it to the kernel, so it is not faulted
// in again. Nothing else changes: same allocator, same results. For the compiling commands only
// (main.cpp): the fixed thresholds would make the interpreter's large arrays (pypto eval / test)
// an mmap and a munmap each.
#pragma once

namespace pypto::cli {

void prefault_heap();

}  // namespace pypto::cli

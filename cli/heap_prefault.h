// Start-up tuning of the C library's heap for a short-lived compiler process. On the VMs pypto is
// measured on, a first touch of a fresh heap page costs ~10 µs (a minor fault: a VM exit and a
// 4 KiB clear), and compiling a large model touches thousands of them. prefault_heap():
//   - maps the first 256 KiB of the heap in one call (MADV_POPULATE_WRITE, Linux >= 5.14): the
//     heap holds only blocks over 256 bytes (smaller ones come from cli/small_alloc.cpp, which
//     maps its first MiB the same way);
//   - tells malloc to keep freed memory instead of returning it to the kernel (it would be
//     faulted in again), and to grow the heap 64 MiB of address space at a time;
//   - asks for transparent huge pages (MADV_HUGEPAGE) on the heap beyond its first 2 MiB, so a
//     large compile faults once per 2 MiB instead of once per 4 KiB.
// advise_thread_heap() does the last for the calling thread's malloc arena (a thread that
// allocates much: the parse-ahead pool). Nothing else changes: same allocator, same results; on
// a kernel without THP or MADV_POPULATE_WRITE the calls fail and change nothing. For the
// compiling commands only (main.cpp): the fixed thresholds would make the interpreter's large
// arrays (pypto eval / test) an mmap and a munmap each.
#pragma once

namespace pypto::cli {

void prefault_heap();
void advise_thread_heap();

}  // namespace pypto::cli

// See heap_prefault.h.
#include "cli/heap_prefault.h"

#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace pypto::cli {

namespace {

constexpr uintptr_t kHuge = uintptr_t(2) << 20;  // a transparent huge page (x86-64, arm64 4K)
uintptr_t align_up(uintptr_t p, uintptr_t a) { return (p + a - 1) & ~(a - 1); }
uintptr_t align_down(uintptr_t p, uintptr_t a) { return p & ~(a - 1); }
void advise_huge(uintptr_t lo, uintptr_t hi) {
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
}

uintptr_t g_main_heap_lo = 0, g_main_heap_hi = 0;  // the main arena's brk range at start-up

}  // namespace

void prefault_heap() {
  constexpr size_t kBytes = size_t(256) << 10;
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
  // Larger than the heap's free top at start-up, so the heap grows now, by kBytes + 64 MiB.
  void* block = std::malloc(kBytes);
  if (!block) return;
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t b = uintptr_t(block);
  const uintptr_t lo = align_up(b, page), hi = align_down(b + kBytes, page);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);  // EINVAL before 5.14: fine
  const uintptr_t top = uintptr_t(sbrk(0));
  if (top > b) {  // the block is in the brk heap (not an mmap of its own)
    g_main_heap_lo = b;
    g_main_heap_hi = top;
    advise_huge(align_up(b + kHuge, kHuge), align_down(top, kHuge));
  }
  std::free(block);  // back to the top of the heap: the next allocations reuse the mapped pages
}

void advise_thread_heap() {
  // A thread's arena (glibc) lives in heaps of 64 MiB of address space, each aligned to 64 MiB
  // and grown in place; the first 2 MiB are left to small pages, as for the main heap.
  constexpr uintptr_t kArenaHeap = uintptr_t(64) << 20;
  void* block = std::malloc(64);
  if (!block) return;
  const uintptr_t b = uintptr_t(block);
  std::free(block);
  if (b >= g_main_heap_lo && b < g_main_heap_hi) return;  // this thread shares the main arena
  const uintptr_t heap = align_down(b, kArenaHeap);
  advise_huge(heap + kHuge, heap + kArenaHeap);
}

}  // namespace pypto::cli

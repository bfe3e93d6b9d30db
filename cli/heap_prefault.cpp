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

void prefault_heap() {
  constexpr size_t kBytes = size_t(1) << 20;
  // Freed memory stays in the process (a compile is short; the kernel gets it back at exit), and
  // the block below comes from the main heap rather than from its own mmap.
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  void* block = std::malloc(kBytes);
  if (!block) return;
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (uintptr_t(block) + page - 1) & ~(page - 1);
  const uintptr_t hi = (uintptr_t(block) + kBytes) & ~(page - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);  // EINVAL before 5.14: fine
  std::free(block);  // back to the top of the heap: the next allocations reuse the mapped pages
}

}  // namespace pypto::cli

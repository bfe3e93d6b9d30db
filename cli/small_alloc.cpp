// The pypto executable's global operator new / delete. A compile allocates and frees hundreds of
// thousands of small objects (IR nodes and their shared_ptr blocks, strings, vectors, map nodes):
// measured with callgrind on qwen3_decode, glibc's malloc and free were 23% of the whole
// compile's instructions (its free coalesces chunks above the 128-byte fast bins on every call).
// Here an object of at most 256 bytes comes from a per-thread free list of its size class
// (16-byte steps), refilled from 64 KiB pages of one class carved from one reserved range of
// address space (1 GiB, PROT_NONE: it counts as memory only as it is made writable, 2-4 MiB at a
// time); a freed object goes onto the freeing thread's list. Nothing is returned to the system
// before exit, and a thread's lists are not handed on when it ends: right for a compile (short,
// few threads), not for the interpreter, whose gangs start threads per task, so `pypto eval` and
// `pypto test` switch the pool off (small_alloc_off: everything from malloc). Larger objects, and
// everything once the range is used up or cannot be made writable, go to malloc.
// tree-sitter's allocations (every parse node) take the same path (small_alloc.h).
//
// Why hand-written: the allocators Debian packages (mimalloc: a shared library only; jemalloc,
// tcmalloc: they replace malloc itself, which collides with glibc's in the static executable)
// cannot serve a static-PIE's operator new. Sanitizer builds keep the standard operators, so
// AddressSanitizer still sees every object. Only the executable has this file: the unit tests
// and the CPU runtime use the standard allocator.
#include "cli/small_alloc.h"
#include "cli/sanitizers.h"

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <tree_sitter/api.h>


#ifndef PYPTO_SANITIZED

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

constexpr size_t kGranule = 16;                      // size classes: 16, 32, ..., 256 bytes
constexpr size_t kMaxSmall = 256;
constexpr size_t kClasses = kMaxSmall / kGranule;
constexpr size_t kPage = size_t(64) << 10;           // one size class per page
constexpr size_t kRange = size_t(1) << 30;           // address space reserved (not memory)
constexpr size_t kPages = kRange / kPage;
constexpr size_t kSmallPages = size_t(2) << 20;      // the first 2 MiB: 4 KiB pages, 512 KiB mapped at once
constexpr size_t kCommitStep = size_t(4) << 20;      // later, made writable 4 MiB at a time

// Constant-initialised (no constructor runs: operator new may be called before any static
// initialiser of this file).
std::atomic<char*> g_base{nullptr};
std::atomic<size_t> g_next{0};        // bytes of the range handed out as pages
std::atomic<size_t> g_writable{0};    // bytes of the range made writable
std::mutex g_grow;                    // making more of the range writable
uint8_t g_class[kPages];              // the size class of each page handed out
std::atomic<bool> g_failed{false};    // the range could not be reserved: malloc only
std::atomic<bool> g_off{false};       // small_alloc_off(): malloc only from now on

struct ThreadLists {
  void* free[kClasses];
  char* bump[kClasses];
  char* end[kClasses];
};
thread_local ThreadLists t_lists;  // zero-initialised, no TLS constructor

char* range() {
  char* base = g_base.load(std::memory_order_acquire);
  if (base || g_failed.load(std::memory_order_relaxed)) return base;
  void* p = mmap(nullptr, kRange, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    g_failed.store(true, std::memory_order_relaxed);
    return nullptr;
  }
  char* mine = static_cast<char*>(p);
  if (!g_base.compare_exchange_strong(base, mine, std::memory_order_acq_rel)) {
    munmap(p, kRange);  // another thread reserved it first
    return base;
  }
  // Beyond 2 MiB, huge pages (one fault per 2 MiB; see heap_prefault.h): advice, kept by the
  // parts made writable later. A failure changes nothing.
  madvise(mine + kSmallPages, kRange - kSmallPages, MADV_HUGEPAGE);
  return mine;
}

// Makes the range writable up to at least `upto` bytes; false when the system refuses.
bool writable(char* base, size_t upto) {
  if (upto <= g_writable.load(std::memory_order_acquire)) return true;
  std::lock_guard<std::mutex> lk(g_grow);
  size_t have = g_writable.load(std::memory_order_relaxed);
  while (have < upto) {
    const size_t step = have < kSmallPages ? kSmallPages : kCommitStep;
    if (mprotect(base + have, step, PROT_READ | PROT_WRITE) != 0) return false;
    // A small compile's objects fit in 1 MiB: mapped in one call (EINVAL before Linux 5.14).
    if (have == 0) madvise(base, kSmallPages / 2, MADV_POPULATE_WRITE);
    have += step;
    g_writable.store(have, std::memory_order_release);
  }
  return true;
}

void* large(size_t n) {
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}

void* allocate(size_t n) {
  if (n > kMaxSmall || g_off.load(std::memory_order_relaxed)) return large(n);
  const size_t c = n ? (n - 1) / kGranule : 0;
  ThreadLists& t = t_lists;
  if (void* p = t.free[c]) {
    t.free[c] = *static_cast<void**>(p);
    return p;
  }
  const size_t size = (c + 1) * kGranule;
  if (t.bump[c] && t.bump[c] + size <= t.end[c]) {
    void* p = t.bump[c];
    t.bump[c] += size;
    return p;
  }
  char* base = range();
  if (!base) return large(n);
  const size_t off = g_next.fetch_add(kPage, std::memory_order_relaxed);
  if (off + kPage > kRange || !writable(base, off + kPage)) return large(n);  // used up, or refused
  g_class[off / kPage] = uint8_t(c);         // read only for objects of this page
  t.bump[c] = base + off + size;
  t.end[c] = base + off + kPage;
  return base + off;
}

void release(void* p) {
  if (!p) return;
  char* base = g_base.load(std::memory_order_relaxed);
  const auto offset = uintptr_t(p) - uintptr_t(base);
  if (base && offset < kRange) {
    ThreadLists& t = t_lists;
    const size_t c = g_class[offset / kPage];
    *static_cast<void**>(p) = t.free[c];
    t.free[c] = p;
    return;
  }
  std::free(p);
}

// The C interface tree-sitter takes (ts_set_allocator): an allocation it cannot get ends the
// process with a message, as tree-sitter's own default does.
[[noreturn]] void out_of_memory() {
  std::fputs("pypto: out of memory\n", stderr);
  std::abort();
}
void* c_malloc(size_t n) {
  try {
    return allocate(n);
  } catch (const std::bad_alloc&) {
    out_of_memory();
  }
}
void* c_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) out_of_memory();
  void* p = c_malloc(count * size);
  std::memset(p, 0, count * size);
  return p;
}
void* c_realloc(void* p, size_t n) {
  if (!p) return c_malloc(n);
  char* base = g_base.load(std::memory_order_relaxed);
  const auto offset = uintptr_t(p) - uintptr_t(base);
  if (!base || offset >= kRange) {  // a malloc'd block stays one
    void* q = std::realloc(p, n ? n : 1);
    if (!q) out_of_memory();
    return q;
  }
  const size_t have = (size_t(g_class[offset / kPage]) + 1) * kGranule;
  if (n <= have && n > have - kGranule) return p;  // the same size class
  void* q = c_malloc(n);
  std::memcpy(q, p, n < have ? n : have);
  release(p);
  return q;
}

}  // namespace

namespace pypto::cli {
void use_small_alloc_for_tree_sitter() { ts_set_allocator(c_malloc, c_calloc, c_realloc, release); }
void small_alloc_off() { g_off.store(true, std::memory_order_relaxed); }
}  // namespace pypto::cli

// The array, nothrow and sized forms of libstdc++ call these.
void* operator new(size_t n) { return allocate(n); }
void* operator new[](size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, size_t) noexcept { release(p); }
void operator delete[](void* p, size_t) noexcept { release(p); }

#else

namespace pypto::cli {
void use_small_alloc_for_tree_sitter() {}  // sanitizer builds: tree-sitter keeps malloc
void small_alloc_off() {}
}  // namespace pypto::cli

#endif  // PYPTO_SANITIZED

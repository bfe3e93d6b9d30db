// PYPTO_SANITIZED is defined in a build with AddressSanitizer, ThreadSanitizer or
// MemorySanitizer (GCC's and Clang's spellings): the executable then keeps the standard
// allocator (small_alloc.cpp) and a normal exit (main.cpp), so the sanitizers see everything.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define PYPTO_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PYPTO_SANITIZED 1
#endif

// The pypto executable's operator new / delete (cli/small_alloc.cpp), linked into this test
// binary alone: every size up to past the small-object limit gives aligned, distinct, writable
// memory that keeps its contents until deleted (sized and unsized delete alike), freed memory is
// reused, and objects made on one thread and freed on another (the parse pool, pypto check's
// entry threads) stay intact under concurrent use. Catch2 and the containers below run on it too.
// tree-sitter on it (malloc, calloc, realloc and free: its arrays grow by realloc) parses a
// program into the same tree as with the C library's allocator.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fstream>
#include <sstream>
#include <tree_sitter/api.h>

#include "cli/small_alloc.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace {

// Fills `n` bytes with a pattern derived from `seed`, and checks it.
void stamp(void* p, size_t n, uint32_t seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(seed * 131u + i * 7u);
}
bool intact(const void* p, size_t n, uint32_t seed) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i] != static_cast<unsigned char>(seed * 131u + i * 7u)) return false;
  return true;
}

}  // namespace

TEST_CASE("small_alloc: every size is aligned, distinct and keeps its contents", "[cli][alloc]") {
  struct Block {
    void* p;
    size_t n;
  };
  std::vector<Block> blocks;
  for (int round = 0; round < 4; ++round)
    for (size_t n = 0; n <= 300; ++n) {
      void* p = ::operator new(n);
      REQUIRE(p != nullptr);
      CHECK(reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t) == 0);
      stamp(p, n, uint32_t(blocks.size()));
      blocks.push_back({p, n});
    }
  // No two live blocks overlap.
  std::vector<Block> sorted = blocks;
  std::sort(sorted.begin(), sorted.end(), [](const Block& a, const Block& b) { return a.p < b.p; });
  for (size_t i = 1; i < sorted.size(); ++i)
    CHECK(static_cast<char*>(sorted[i - 1].p) + std::max<size_t>(sorted[i - 1].n, 1) <= static_cast<char*>(sorted[i].p));
  for (size_t i = 0; i < blocks.size(); ++i) CHECK(intact(blocks[i].p, blocks[i].n, uint32_t(i)));
  // Half freed with the sized form, half with the unsized one; new blocks reuse the memory and
  // the survivors are untouched.
  std::set<void*> freed;
  for (size_t i = 0; i < blocks.size(); i += 2) {
    freed.insert(blocks[i].p);
    if (i % 4 == 0)
      ::operator delete(blocks[i].p, blocks[i].n);
    else
      ::operator delete(blocks[i].p);
  }
  size_t reused = 0;
  std::vector<Block> again;
  for (size_t i = 0; i < blocks.size(); i += 2) {
    void* p = ::operator new(blocks[i].n);
    reused += freed.count(p);
    stamp(p, blocks[i].n, 7777u + uint32_t(i));
    again.push_back({p, blocks[i].n});
  }
  CHECK(reused > blocks.size() / 4);  // small sizes come back from the free lists
  for (size_t i = 1; i < blocks.size(); i += 2) CHECK(intact(blocks[i].p, blocks[i].n, uint32_t(i)));
  for (size_t k = 0; k < again.size(); ++k) CHECK(intact(again[k].p, again[k].n, 7777u + uint32_t(2 * k)));
  for (size_t i = 1; i < blocks.size(); i += 2) ::operator delete(blocks[i].p);
  for (auto& b : again) ::operator delete(b.p);
  ::operator delete(nullptr);  // a no-op
}

TEST_CASE("small_alloc: objects made on one thread and freed on another stay intact", "[cli][alloc]") {
  // Two producers hand their blocks to each other; each frees the other's and allocates anew, all
  // concurrently. Every block is stamped with its owner and index and checked before it is freed.
  constexpr int kBlocks = 20000;
  std::vector<std::pair<void*, size_t>> made[2];
  for (int t = 0; t < 2; ++t) made[t].resize(kBlocks);
  bool ok[2] = {true, true};
  auto produce = [&](int t) {
    for (int i = 0; i < kBlocks; ++i) {
      const size_t n = size_t(1 + (i * 37 + t * 11) % 400);  // small and large
      void* p = ::operator new(n);
      stamp(p, n, uint32_t(t * kBlocks + i));
      made[t][size_t(i)] = {p, n};
    }
  };
  std::thread a(produce, 0), b(produce, 1);
  a.join();
  b.join();
  auto swap_free = [&](int t) {
    const int other = 1 - t;
    for (int i = 0; i < kBlocks; ++i) {
      auto [p, n] = made[other][size_t(i)];
      if (!intact(p, n, uint32_t(other * kBlocks + i))) ok[t] = false;
      ::operator delete(p, n);
      void* q = ::operator new(n);  // likely the block just freed, now this thread's
      stamp(q, n, 0xABCDu + uint32_t(i));
      if (!intact(q, n, 0xABCDu + uint32_t(i))) ok[t] = false;
      ::operator delete(q);
    }
  };
  std::thread c(swap_free, 0), d(swap_free, 1);
  c.join();
  d.join();
  CHECK(ok[0]);
  CHECK(ok[1]);
}

TEST_CASE("small_alloc: standard containers work on it", "[cli][alloc]") {
  std::map<std::string, std::vector<int>> m;
  for (int i = 0; i < 5000; ++i) m["key number " + std::to_string(i)].assign(size_t(i % 70), i);
  for (int i = 0; i < 5000; i += 2) m.erase("key number " + std::to_string(i));
  size_t total = 0;
  for (const auto& [k, v] : m) {
    const int i = std::stoi(k.substr(11));
    CHECK(i % 2 == 1);
    CHECK(v.size() == size_t(i % 70));
    total += v.size();
  }
  CHECK(m.size() == 2500);
  CHECK(total > 0);
}

TEST_CASE("small_alloc: tree-sitter on it parses to the same tree", "[cli][alloc]") {
  std::ifstream in(std::string(PYPTO_TEST_PROGRAMS) + "/e2e_softmax.py");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text;
  for (int i = 0; i < 60; ++i) text += ss.str();  // ~50 KB: arrays grow by realloc many times
  REQUIRE(text.size() > 40000);
  auto sexp = [&] {
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), uint32_t(text.size()));
    char* s = ts_node_string(ts_tree_root_node(tree));
    std::string out(s);
    ::operator delete(s);  // tree-sitter's block: this delete takes pool blocks and malloc'd ones
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    return out;
  };
  const std::string with_libc = sexp();
  pypto::cli::use_small_alloc_for_tree_sitter();
  const std::string with_pool = sexp();
  CHECK(with_pool.size() > 10000);
  CHECK(with_pool == with_libc);
  CHECK(with_pool == sexp());  // again, now reusing freed blocks
}

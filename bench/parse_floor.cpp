// The parser's floor: how long tree-sitter alone takes to parse each given file (one thread, warm,
// best of N), with nothing of pypto around it. `pypto check` must parse every byte of the file named
// on its command line (a syntax error anywhere in it is reported), so this time bounds the front end
// from below; bench/compile_speed.py prints it beside the compile-speed targets.
//
// Usage: pypto_bench_parse [--reps N] FILE...
// Prints one line per file, "<first ms> <best ms> <bytes> <path>", then the same for "total". The
// first parse of a process touches fresh memory for the tree (on a VM each new 4 KiB page costs
// microseconds); the best of the later ones reuses it: a compile pays the first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <tree_sitter/api.h>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

int main(int argc, char** argv) {
  int reps = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else files.push_back(a);
  }
  if (files.empty()) {
    std::fputs("usage: pypto_bench_parse [--reps N] FILE...\n", stderr);
    return 2;
  }
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  double total_first = 0, total_ms = 0;
  size_t total_bytes = 0;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "pypto_bench_parse: cannot read %s\n", path.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    double first = 0, best = 1e30;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), uint32_t(text.size()));
      const auto t1 = std::chrono::steady_clock::now();
      ts_tree_delete(tree);
      const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      if (r == 0) first = ms;
      best = std::min(best, ms);
    }
    std::printf("%.3f %.3f %zu %s\n", first, best, text.size(), path.c_str());
    total_first += first;
    total_ms += best;
    total_bytes += text.size();
  }
  std::printf("%.3f %.3f %zu total\n", total_first, total_ms, total_bytes);
  ts_parser_delete(parser);
  return 0;
}

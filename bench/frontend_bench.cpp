// Front-end benchmark: for each input file (and a generated ~10,000-line program) report the
// raw tree-sitter parse time and the whole front end's time (parse + IR build + checks), measured
// in the same run, best of N repetitions. Target: front end within 2x of the raw parse, growing
// linearly with size (the generated program is measured at 1x, 2x, 4x size to show the trend).
// With --raw, tree-sitter alone (the parser's floor, printed by bench/compile_speed.py): for each
// file the first parse of the process, all trees kept as a compile keeps them (on a VM each new
// 4 KiB page costs microseconds), and the best warm one; lines "<first ms> <best ms> <bytes>
// <path>", then the same for "total".
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <string>
#include <tree_sitter/api.h>
#include <vector>

#include "ir/diagnostic.h"
#include "parser/frontend.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace {

using Clock = std::chrono::steady_clock;

double best_ms(int reps, const auto& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return best;
}

// A valid program with `kernels` InCore kernels of ~`body` statements each plus an orchestration
// function calling them all: roughly kernels * (body + 8) lines.
std::string generate_program(int kernels, int body) {
  std::ostringstream s;
  s << "# Generated benchmark program\nimport pypto.language as pl\n\nROWS = 64\nCOLS = 128\n\n"
       "@pl.program\nclass Big:\n";
  for (int k = 0; k < kernels; ++k) {
    s << "    @pl.function(type=pl.FunctionType.InCore)\n"
      << "    def k" << k << "(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], "
      << "out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:\n"
      << "        t = pl.load(x, [0, 0], [ROWS, COLS])\n";
    for (int i = 0; i < body; ++i) {
      switch (i % 4) {
        case 0: s << "        t = pl.add(t, " << (i + 1) << ".0)\n"; break;
        case 1: s << "        t = pl.mul(t, t)  # square\n"; break;
        case 2: s << "        u = pl.exp(t)\n"; break;
        default: s << "        t = pl.sub(u, t)\n"; break;
      }
    }
    s << "        out = pl.store(t, [0, 0], out)\n        return out\n\n";
  }
  s << "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    << "    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], "
    << "out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:\n";
  for (int k = 0; k < kernels; ++k) s << "        out = self.k" << k << "(x, out)\n";
  s << "        return out\n";
  return s.str();
}

void measure(const std::string& label, const std::string& path, const std::string& text, int reps) {
  size_t lines = std::count(text.begin(), text.end(), '\n');
  TSParser* p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_python());
  double raw = best_ms(reps, [&] {
    TSTree* t = ts_parser_parse_string(p, nullptr, text.data(), uint32_t(text.size()));
    ts_tree_delete(t);
  });
  ts_parser_delete(p);
  std::string err;
  double fe = best_ms(reps, [&] {
    try {
      pypto::ir::DiagnosticSink sink;
      auto file = std::make_shared<pypto::ir::SourceFile>(path, text);
      pypto::parser::parse_source(file, {}, sink);
    } catch (const std::exception& e) {
      err = e.what();
    }
  });
  fmt::print("{:<28} {:>7} lines  raw parse {:>9.3f} ms  front end {:>9.3f} ms  ratio {:>5.2f}x  {:>8.1f} us/kline{}\n",
             label, lines, raw, fe, fe / raw, fe * 1000.0 / (double(lines) / 1000.0),
             err.empty() ? "" : "  ERROR: " + err);
}

void measure_raw(const std::vector<std::string>& paths, int reps) {
  std::vector<std::string> texts;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      fmt::print(stderr, "pypto_bench_frontend: cannot read {}\n", path);
      std::exit(1);
    }
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
  }
  TSParser* p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_python());
  auto parse = [&](const std::string& text) {
    return ts_parser_parse_string(p, nullptr, text.data(), uint32_t(text.size()));
  };
  std::vector<TSTree*> kept;
  std::vector<double> first;
  for (const auto& text : texts) first.push_back(best_ms(1, [&] { kept.push_back(parse(text)); }));
  for (TSTree* t : kept) ts_tree_delete(t);
  double total_first = 0, total_best = 0;
  size_t total_bytes = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const double best = best_ms(reps, [&] { ts_tree_delete(parse(texts[i])); });
    fmt::print("{:.3f} {:.3f} {} {}\n", first[i], best, texts[i].size(), paths[i]);
    total_first += first[i];
    total_best += best;
    total_bytes += texts[i].size();
  }
  fmt::print("{:.3f} {:.3f} {} total\n", total_first, total_best, total_bytes);
  ts_parser_delete(p);
}

}  // namespace

// Usage: pypto_bench_frontend [--reps N] [--only-generated] [--scale S] [FILE...]
//        pypto_bench_frontend --raw [--reps N] FILE...
//   --reps N          repetitions per measurement (best is reported; default 5)
//   --only-generated  skip the files, measure only the generated programs
//   --scale S         measure only the generated program at scale S (for profiling; 0: none)
//   --raw             tree-sitter alone on the files, first and best (see the top of this file)
int main(int argc, char** argv) {
  int reps = 5;
  bool only_generated = false, raw = false;
  std::vector<int> scales = {1, 2, 4};
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--only-generated") only_generated = true;
    else if (a == "--raw") raw = true;
    else if (a == "--scale" && i + 1 < argc) scales = {std::max(0, std::atoi(argv[++i]))};
    else files.push_back(a);
  }
  if (raw) {
    measure_raw(files, reps);
    return 0;
  }
  if (!only_generated) {
    for (const auto& name : files) {
      std::ifstream f(name, std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      measure(name.substr(name.find_last_of('/') + 1), name, ss.str(), reps);
    }
  }
  for (int scale : scales) {
    if (scale == 0) continue;
    std::string text = generate_program(50 * scale, 192);
    measure(fmt::format("generated x{}", scale), "<generated>", text, reps);
  }
  return 0;
}

// `pypto graph FILE [-o graph.dot|graph.svg|graph.html]`: the orchestration's task graph as the
// compiler sees it (passes/task_graph.h) -- kernel tasks in their loops and branches (loops folded,
// with their trip counts), the entry's tensors and the ones it creates, and the dependency edges
// with their reasons (RAW / WAR / WAW and the tensor; dashed: into the next iteration). DOT text
// on stdout or in a .dot file; .svg and .html are rendered by Graphviz's `dot` (Debian graphviz),
// and without it .html shows the DOT text instead.
#include <cstdio>
#include <fmt/format.h>
#include <map>

#include "cli/commands.h"
#include "passes/pipeline.h"
#include "passes/task_graph.h"

namespace pypto::cli {

namespace {

std::string quote(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string html(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string render_dot(const passes::TaskGraph& g, const std::string& program) {
  std::string o = fmt::format("digraph {} {{\n", quote(program + "." + g.function));
  o += "  rankdir=TB;\n  fontname=\"sans-serif\";\n"
       "  node [fontname=\"sans-serif\", fontsize=11];\n  edge [fontname=\"sans-serif\", fontsize=9];\n";
  o += fmt::format("  label={};\n  labelloc=t;\n", quote(fmt::format("task graph of {} ({})", program, g.function)));
  // Tensors: parameters (In above, Out/InOut below by rank), created ones.
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const auto& t = g.tensors[i];
    const std::string kind = t.param ? std::string(ir::to_string(t.dir)) : "created";
    o += fmt::format("  tensor{} [shape=ellipse, style=filled, fillcolor={}, label={}];\n", i,
                     t.param ? "\"#eeeeee\"" : "\"#fff4d6\"", quote(fmt::format("{}\n{} ({})", t.name, t.type, kind)));
  }
  // Tasks, nested in their regions' clusters.
  std::map<int, std::vector<size_t>> tasks_in;
  for (size_t i = 0; i < g.tasks.size(); ++i) tasks_in[g.tasks[i].region].push_back(i);
  std::map<int, std::vector<int>> children;
  for (size_t r = 0; r < g.regions.size(); ++r) children[g.regions[r].parent].push_back(int(r));
  std::function<void(int, int)> emit_region = [&](int r, int depth) {
    const std::string pad(size_t(2 * depth + 2), ' ');
    if (r >= 0) {
      const auto& reg = g.regions[size_t(r)];
      o += fmt::format("{}subgraph cluster_{} {{\n{}  label={};\n{}  style={};\n{}  color=\"#6a8caf\";\n", pad, r, pad,
                       quote(reg.label), pad, reg.loop ? "\"rounded\"" : "\"dashed\"", pad);
    }
    for (size_t t : tasks_in[r]) {
      const auto& k = g.tasks[t];
      const std::string at = k.span.file ? fmt::format("{}:{}", k.span.file->path, k.span.line) : "";
      o += fmt::format("{}  task{} [shape=box, style=\"rounded,filled\", fillcolor=\"#dde8f7\", label={}];\n", pad, t,
                       quote(fmt::format("{}\ntask {}{}", k.kernel, t, at.empty() ? "" : "\n" + at)));
    }
    for (int c : children[r]) emit_region(c, depth + 1);
    if (r >= 0) o += pad + "}\n";
  };
  emit_region(-1, 0);
  // Data: which tensors each task reads and writes.
  for (size_t t = 0; t < g.tasks.size(); ++t)
    for (const auto& a : g.tasks[t].accesses) {
      const std::string lbl = a.via == g.tensors[size_t(a.tensor)].name ? "" : fmt::format(", label={}", quote(a.via));
      if (a.read)
        o += fmt::format("  tensor{} -> task{} [color=\"#999999\", arrowsize=0.6{}];\n", a.tensor, t, lbl);
      if (a.write)
        o += fmt::format("  task{} -> tensor{} [color=\"#999999\", arrowsize=0.6{}];\n", t, a.tensor, a.read ? "" : lbl);
    }
  // Dependencies.
  for (const auto& e : g.edges)
    o += fmt::format("  task{} -> task{} [color={}, penwidth=1.6, label={}{}];\n", e.from, e.to,
                     e.carried ? "\"#c0392b\"" : "\"#1f4e79\"",
                     quote(e.carried ? "next iteration: " + e.reasons : e.reasons),
                     e.carried ? ", style=dashed, constraint=false" : "");
  return o + "}\n";
}

// Graphviz's dot, run on `dot_text`: its SVG, or nullopt when dot is not installed.
std::optional<std::string> run_dot(const std::string& dot_text, const std::string& tmp_dir_hint) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0) return std::nullopt;
  const std::string in = tmp_dir_hint + ".in.dot", out = tmp_dir_hint + ".out.svg";
  write_output_file(in, dot_text, "graph");
  const int rc = std::system(fmt::format("dot -Tsvg -o '{}' '{}' 2>/dev/null", out, in).c_str());
  std::remove(in.c_str());
  if (rc != 0) {
    std::remove(out.c_str());
    throw std::runtime_error("graphviz's dot failed on the generated graph");
  }
  std::FILE* f = std::fopen(out.c_str(), "rb");
  std::string svg;
  if (f) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) svg.append(buf, n);
    std::fclose(f);
  }
  std::remove(out.c_str());
  return svg;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int cmd_graph(const GraphOptions& opts) {
  return guarded(opts.common, [&](ir::DiagnosticSink& sink) {
    const bool dot = ends_with(opts.output, ".dot"), svg = ends_with(opts.output, ".svg"),
               page = ends_with(opts.output, ".html");
    if (!opts.output.empty() && !dot && !svg && !page)
      throw UsageError(fmt::format("-o {}: write a .dot, .svg or .html file", opts.output));
    auto prog = load_program(opts.file, opts.common, sink);
    passes::PassContext ctx;
    ctx.soc = *ir::soc_from_name(opts.soc);
    prog = passes::run_pipeline(prog, ctx);
    for (auto& d : ctx.diagnostics.take()) sink.report(std::move(d));
    const auto g = passes::task_graph(*prog);
    if (g.function.empty())
      throw ir::CompileError("E510", ir::Span{}, fmt::format("'{}' has no orchestration function: no task graph to draw", prog->name),
                             "a program whose entry is a single kernel runs as one task");
    const std::string text = render_dot(g, prog->name);
    if (opts.output.empty()) {
      std::fputs(text.c_str(), stdout);
      return int(kOk);
    }
    if (dot) {
      write_output_file(opts.output, text, "graph", {opts.file});
      return int(kOk);
    }
    auto rendered = run_dot(text, opts.output);
    if (svg) {
      if (!rendered)
        throw UsageError("-o " + opts.output + ": drawing SVG needs Graphviz's dot (Debian: apt-get install graphviz); "
                         "-o graph.dot writes the DOT text");
      write_output_file(opts.output, *rendered, "graph", {opts.file});
      return int(kOk);
    }
    std::string body = rendered ? *rendered
                                : "<p>Graphviz's <code>dot</code> is not installed (Debian: graphviz): the graph as DOT "
                                  "text.</p>\n<pre>" + html(text) + "</pre>";
    if (rendered && body.rfind("<?xml", 0) == 0) body = body.substr(body.find("<svg"));  // inline: no XML prolog
    write_output_file(opts.output,
                      fmt::format("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>task graph of {}</title>"
                                  "</head>\n<body>\n{}\n</body></html>\n",
                                  html(prog->name), body),
                      "graph", {opts.file});
    return int(kOk);
  });
}

}  // namespace pypto::cli

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
#include "cli/pictures.h"
#include "passes/task_graph.h"

namespace pypto::cli {

int cmd_graph(const GraphOptions& opts) {
  return guarded(opts.common, [&](ir::DiagnosticSink& sink) {
    const bool dot = has_suffix(opts.output, ".dot"), svg = has_suffix(opts.output, ".svg"),
               page = has_suffix(opts.output, ".html");
    if (!opts.output.empty() && !dot && !svg && !page)
      throw UsageError(fmt::format("-o {}: write a .dot, .svg or .html file", opts.output));
    const auto prog = compile_program(opts.file, opts.common, opts.soc, sink);
    const auto g = passes::task_graph(*prog);
    if (g.function.empty())
      throw ir::CompileError("E510", ir::Span{}, fmt::format("'{}' has no orchestration function: no task graph to draw", prog->name),
                             "a program whose entry is a single kernel runs as one task");
    const std::string text = task_graph_dot(g, prog->name);
    if (opts.output.empty()) {
      std::fputs(text.c_str(), stdout);
      return int(kOk);
    }
    if (dot) {
      write_output_file(opts.output, text, "graph", {opts.file});
      return int(kOk);
    }
    auto rendered = dot_to_svg(text);
    if (svg) {
      if (!rendered)
        throw UsageError("-o " + opts.output + ": drawing SVG needs Graphviz's dot (Debian: apt-get install graphviz); "
                         "-o graph.dot writes the DOT text");
      write_output_file(opts.output, *rendered, "graph", {opts.file});
      return int(kOk);
    }
    const std::string body = graph_figure(text, rendered);
    write_output_file(opts.output,
                      fmt::format("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>task graph of {}</title>"
                                  "</head>\n<body>\n{}\n</body></html>\n",
                                  html_escape(prog->name), body),
                      "graph", {opts.file});
    return int(kOk);
  });
}

}  // namespace pypto::cli

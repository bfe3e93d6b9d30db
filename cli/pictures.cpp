// The pictures pypto draws (see pictures.h): the memory plan as a table, JSON and SVG, the task
// graph as DOT and, through Graphviz's dot, SVG.
#include "cli/pictures.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/driver.h"

namespace pypto::cli {

using passes::KernelPlan;

namespace {

std::string kib(int64_t b) { return b % 1024 == 0 ? fmt::format("{} KiB", b / 1024) : fmt::format("{:.1f} KiB", b / 1024.0); }

std::string percent(int64_t used, int64_t cap) { return cap > 0 ? fmt::format("{:.1f} %", 100.0 * used / cap) : "-"; }

std::string xml_escape_impl(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string where(const ir::Span& s) {
  return s.file ? fmt::format("{}:{}", s.file->path, s.line) : std::string();
}

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

}  // namespace

std::string html_escape(std::string_view s) { return xml_escape_impl(s); }

std::string memory_plan_text(const std::vector<KernelPlan>& plan) {
  std::string o;
  for (const auto& k : plan) {
    o += fmt::format("kernel {} ({}), statements 0..{}\n", k.name, ir::to_string(k.type), k.statements);
    for (const auto& sp : k.spaces) {
      o += fmt::format("  {}: {} of {} used ({})\n", ir::to_string(sp.space), kib(sp.used), kib(sp.capacity),
                       percent(sp.used, sp.capacity));
      for (const auto& t : sp.tiles)
        o += fmt::format("    [{:>7}, {:>7})  live {:>3}..{:<3}  {:<20} {:<16} {:<12} {}\n", t.addr, t.addr + t.size,
                         t.def, t.last, t.name, t.type, t.buffer, where(t.span));
    }
  }
  if (plan.empty()) o += "no kernel holds on-chip buffers\n";
  return o;
}

std::string memory_plan_json(const std::vector<KernelPlan>& plan, const std::string& program, const std::string& soc) {
  using Json = nlohmann::ordered_json;
  Json ks = Json::array();
  for (const auto& k : plan) {
    Json spaces = Json::array();
    for (const auto& sp : k.spaces) {
      Json tiles = Json::array();
      for (const auto& t : sp.tiles)
        tiles.push_back({{"name", t.name}, {"type", t.type}, {"buffer", t.buffer}, {"addr", t.addr}, {"size", t.size}, {"def", t.def},
                         {"last", t.last}, {"file", t.span.file ? t.span.file->path : ""}, {"line", t.span.line}});
      spaces.push_back({{"space", ir::to_string(sp.space)}, {"capacity", sp.capacity}, {"used", sp.used},
                        {"tiles", std::move(tiles)}});
    }
    ks.push_back({{"name", k.name}, {"type", ir::to_string(k.type)}, {"statements", k.statements},
                  {"spaces", std::move(spaces)}});
  }
  Json doc = {{"program", program}, {"soc", soc}, {"kernels", std::move(ks)}};
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// One panel per (kernel, space), stacked: x = statement number, y = byte address (0 at the
// bottom, the capacity at the top), one box per tile over its live range and byte range.
std::string memory_plan_svg(const std::vector<KernelPlan>& plan, const std::string& program, const std::string& soc) {
  constexpr int kLeft = 90, kWidth = 720, kPanel = 200, kGap = 70, kTop = 40;
  int panels = 0;
  for (const auto& k : plan) panels += int(k.spaces.size());
  const int height = kTop + std::max(1, panels) * (kPanel + kGap);
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<title>pypto memory plan: {} ({})</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Memory plan of {} ({})</text>\n",
      kLeft + kWidth + 40, height, kLeft + kWidth + 40, height, html_escape(program), html_escape(soc), kLeft, html_escape(program), html_escape(soc));
  int y0 = kTop;
  for (const auto& k : plan) {
    for (const auto& sp : k.spaces) {
      const double cap = double(std::max<int64_t>(sp.capacity, std::max<int64_t>(sp.used, 1)));
      const double steps = double(std::max(1, k.statements));
      const int top = y0 + 20, bottom = top + kPanel;
      auto ypix = [&](int64_t addr) { return bottom - double(addr) / cap * kPanel; };
      auto xpix = [&](double s) { return kLeft + s / steps * kWidth; };
      o += fmt::format("<g class=\"panel\" data-kernel=\"{}\" data-space=\"{}\">\n", html_escape(k.name), ir::to_string(sp.space));
      o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\">{} ({}) · {}: {} of {} ({})</text>\n", kLeft, y0 + 12,
                       html_escape(k.name), ir::to_string(k.type), ir::to_string(sp.space), kib(sp.used), kib(sp.capacity),
                       percent(sp.used, sp.capacity));
      o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f6f6f6\" stroke=\"#888\"/>\n", kLeft,
                       top, kWidth, kPanel);
      // Address axis: 0, the high-water mark, the capacity.
      for (int64_t a : {int64_t(0), sp.used, sp.capacity}) {
        o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"#444\">{}</text>\n", kLeft - 6,
                         ypix(a) + 4, kib(a));
      }
      o += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#c33\" stroke-dasharray=\"4 3\"/>\n",
                       kLeft, kLeft + kWidth, ypix(sp.used), ypix(sp.used));
      o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444\">statement</text>\n",
                       kLeft + kWidth / 2, bottom + 16);
      for (size_t i = 0; i < sp.tiles.size(); ++i) {
        const auto& t = sp.tiles[i];
        // [def, last]: a tile that dies where the next is born (u = f(t) in its buffer) touches it.
        const double x = xpix(t.def), w = std::max(3.0, xpix(t.last) - x);
        const double y = ypix(t.addr + t.size), h = std::max(2.0, ypix(t.addr) - y);
        const int hue = int((i * 137) % 360);
        o += fmt::format(
            "<rect class=\"tile\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"hsl({},60%,70%)\" "
            "stroke=\"hsl({},60%,35%)\"><title>{} {} in {}: bytes [{}, {}), live {}..{}{}</title></rect>\n",
            x, y, w, h, hue, hue, html_escape(t.name), html_escape(t.type), html_escape(t.buffer), t.addr, t.addr + t.size, t.def, t.last,
            t.span.file ? html_escape(", " + where(t.span)) : "");
        if (w > 7.0 * double(t.name.size()) && h > 12)
          o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#222\">{}</text>\n", x + 3, y + h / 2 + 4, html_escape(t.name));
      }
      o += "</g>\n";
      y0 += kPanel + kGap;
    }
  }
  if (plan.empty())
    o += fmt::format("<text x=\"{}\" y=\"{}\">no kernel holds on-chip buffers</text>\n", kLeft, kTop + 30);
  return o + "</svg>\n";
}

std::string task_graph_dot(const passes::TaskGraph& g, const std::string& program) {
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

std::optional<std::string> dot_to_svg(const std::string& dot_text) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0) return std::nullopt;
  std::string path = (std::filesystem::temp_directory_path() / "pypto-graph-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for Graphviz");
  close(fd);
  write_output_file(path, dot_text, "graph");
  std::FILE* p = popen(fmt::format("dot -Tsvg '{}' 2>/dev/null", path).c_str(), "r");
  std::string svg;
  if (p) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) svg.append(buf, n);
  }
  const int rc = p ? pclose(p) : -1;
  std::remove(path.c_str());
  if (rc != 0 || svg.find("<svg") == std::string::npos)
    throw std::runtime_error("Graphviz's dot failed on the generated graph");
  return svg;
}

std::string graph_figure(const std::string& dot_text, const std::optional<std::string>& svg) {
  if (!svg)
    return "<p>Graphviz's <code>dot</code> is not installed (Debian: graphviz): the graph as DOT text.</p>\n<pre>" +
           html_escape(dot_text) + "</pre>";
  return svg->substr(std::min(svg->find("<svg"), svg->size()));  // inline in HTML: no XML prolog
}

}  // namespace pypto::cli

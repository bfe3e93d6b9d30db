// `pypto memplan FILE [-o plan.svg|plan.json]`: the memory plan of every kernel after the whole
// pipeline (passes/memory_plan.h) -- per on-chip memory space, each tile's address range against
// its live range, and how close the space comes to its capacity. Without -o a table on stdout;
// with -o an SVG picture (one panel per kernel and space: statements across, addresses up, one
// box per tile, the capacity at the top) or the same data as JSON.
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "passes/memory_plan.h"
#include "passes/pipeline.h"

namespace pypto::cli {

namespace {

using passes::KernelPlan;

std::string kib(int64_t b) { return b % 1024 == 0 ? fmt::format("{} KiB", b / 1024) : fmt::format("{:.1f} KiB", b / 1024.0); }

std::string percent(int64_t used, int64_t cap) { return cap > 0 ? fmt::format("{:.1f} %", 100.0 * used / cap) : "-"; }

std::string xml(std::string_view s) {
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

std::string render_text(const std::vector<KernelPlan>& plan) {
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

std::string render_json(const std::vector<KernelPlan>& plan, const std::string& program, const std::string& soc) {
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
std::string render_svg(const std::vector<KernelPlan>& plan, const std::string& program, const std::string& soc) {
  constexpr int kLeft = 90, kWidth = 720, kPanel = 200, kGap = 70, kTop = 40;
  int panels = 0;
  for (const auto& k : plan) panels += int(k.spaces.size());
  const int height = kTop + std::max(1, panels) * (kPanel + kGap);
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<title>pypto memory plan: {} ({})</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Memory plan of {} ({})</text>\n",
      kLeft + kWidth + 40, height, kLeft + kWidth + 40, height, xml(program), xml(soc), kLeft, xml(program), xml(soc));
  int y0 = kTop;
  for (const auto& k : plan) {
    for (const auto& sp : k.spaces) {
      const double cap = double(std::max<int64_t>(sp.capacity, std::max<int64_t>(sp.used, 1)));
      const double steps = double(std::max(1, k.statements));
      const int top = y0 + 20, bottom = top + kPanel;
      auto ypix = [&](int64_t addr) { return bottom - double(addr) / cap * kPanel; };
      auto xpix = [&](double s) { return kLeft + s / steps * kWidth; };
      o += fmt::format("<g class=\"panel\" data-kernel=\"{}\" data-space=\"{}\">\n", xml(k.name), ir::to_string(sp.space));
      o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\">{} ({}) · {}: {} of {} ({})</text>\n", kLeft, y0 + 12,
                       xml(k.name), ir::to_string(k.type), ir::to_string(sp.space), kib(sp.used), kib(sp.capacity),
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
            x, y, w, h, hue, hue, xml(t.name), xml(t.type), xml(t.buffer), t.addr, t.addr + t.size, t.def, t.last,
            t.span.file ? xml(", " + where(t.span)) : "");
        if (w > 7.0 * double(t.name.size()) && h > 12)
          o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#222\">{}</text>\n", x + 3, y + h / 2 + 4, xml(t.name));
      }
      o += "</g>\n";
      y0 += kPanel + kGap;
    }
  }
  if (plan.empty())
    o += fmt::format("<text x=\"{}\" y=\"{}\">no kernel holds on-chip buffers</text>\n", kLeft, kTop + 30);
  return o + "</svg>\n";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int cmd_memplan(const MemplanOptions& opts) {
  return guarded(opts.common, [&](ir::DiagnosticSink& sink) {
    const bool svg = ends_with(opts.output, ".svg"), json = ends_with(opts.output, ".json");
    if (!opts.output.empty() && !svg && !json)
      throw UsageError(fmt::format("-o {}: write a .svg picture or a .json file", opts.output));
    auto prog = load_program(opts.file, opts.common, sink);
    passes::PassContext ctx;
    ctx.soc = *ir::soc_from_name(opts.soc);
    prog = passes::run_pipeline(prog, ctx);
    for (auto& d : ctx.diagnostics.take()) sink.report(std::move(d));
    const auto plan = passes::memory_plan(*prog, ctx.soc);
    if (opts.output.empty()) {
      std::fputs(render_text(plan).c_str(), stdout);
      return int(kOk);
    }
    const std::string text = svg ? render_svg(plan, prog->name, opts.soc) : render_json(plan, prog->name, opts.soc);
    write_output_file(opts.output, text, "memory plan", {opts.file});
    return int(kOk);
  });
}

}  // namespace pypto::cli

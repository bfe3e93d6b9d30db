// The build report page (see report.h).
#include "cli/report.h"

#include <dtl/dtl.hpp>
#include <fmt/format.h>
#include <sstream>

#include "cli/pictures.h"
#include "ir/soc.h"

namespace pypto::cli {

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

struct Change {
  std::string diff;  // unified, with 3 lines of context
  int added = 0, removed = 0;
};

Change diff_of(const std::string& before, const std::string& after) {
  Change c;
  if (before == after) return c;
  const auto a = lines_of(before), b = lines_of(after);
  dtl::Diff<std::string, std::vector<std::string>> d(a, b);
  d.onHuge();
  d.compose();
  for (const auto& e : d.getSes().getSequence()) {
    if (e.second.type == dtl::SES_ADD) ++c.added;
    if (e.second.type == dtl::SES_DELETE) ++c.removed;
  }
  d.composeUnifiedHunks();
  std::ostringstream os;
  d.printUnifiedFormat(os);
  c.diff = os.str();
  return c;
}

// A unified diff as HTML lines, added and removed lines marked.
std::string diff_html(const std::string& diff) {
  std::string o;
  for (const auto& l : lines_of(diff)) {
    const char* cls = l.rfind("@@", 0) == 0 ? "hunk" : !l.empty() && l[0] == '+' ? "add" : !l.empty() && l[0] == '-' ? "del" : "ctx";
    o += fmt::format("<span class=\"{}\">{}</span>\n", cls, html_escape(l));
  }
  return o;
}

const char* kStyle = R"(body{font-family:sans-serif;margin:2em;max-width:1200px;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:12px;line-height:1.35}
details{margin:.3em 0}summary{cursor:pointer}table{border-collapse:collapse}
td,th{border:1px solid #ddd;padding:.2em .6em;text-align:left;font-size:13px}
.add{color:#1a7f37;background:#e6ffec;display:block}.del{color:#b42318;background:#ffebe9;display:block}
.hunk{color:#6a5acd;display:block}.ctx{display:block}.unchanged{color:#888}
figure{margin:1em 0;overflow-x:auto}nav a{margin-right:1em})";

}  // namespace

std::string render_report(const ReportInputs& in) {
  const ir::Program& p = *in.program;
  std::string o = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>pypto report: {}</title>\n"
      "<style>{}</style></head>\n<body>\n<h1>pypto report: {}</h1>\n<p>From <code>{}</code>, for the {} "
      "({}).</p>\n<nav><a href=\"#graph\">Task graph</a><a href=\"#memory\">Memory plans</a><a "
      "href=\"#sources\">Generated sources</a><a href=\"#passes\">Pass pipeline</a></nav>\n",
      html_escape(p.name), kStyle, html_escape(p.name), html_escape(in.source), in.soc == "950" ? "Ascend 950" : "Ascend 910B",
      html_escape(in.soc));

  o += "<h2 id=\"graph\">Task graph</h2>\n";
  const auto g = passes::task_graph(p);
  if (g.function.empty()) {
    o += "<p>The program has no orchestration function: its entry runs as one task.</p>\n";
  } else {
    const std::string dot = task_graph_dot(g, p.name);
    o += "<figure id=\"task-graph\">\n" + graph_figure(dot, dot_to_svg(dot)) + "\n</figure>\n";
  }

  o += "<h2 id=\"memory\">Memory plans</h2>\n";
  const auto plan = passes::memory_plan(p, *ir::soc_from_name(in.soc));
  o += "<figure id=\"memory-plan\">\n" + memory_plan_svg(plan, p.name, in.soc) + "</figure>\n";
  o += "<pre>" + html_escape(memory_plan_text(plan)) + "</pre>\n";

  o += "<h2 id=\"sources\">Generated sources</h2>\n";
  if (in.files)
    for (const auto& [path, text] : *in.files) {
      if (path.rfind("kernels/", 0) != 0 && path.rfind("orchestration/", 0) != 0) continue;
      o += fmt::format("<details class=\"source\"><summary><code>{}</code> ({} lines)</summary>\n<pre>{}</pre></details>\n",
                       html_escape(path), lines_of(text).size(), html_escape(text));
    }

  o += "<h2 id=\"passes\">Pass pipeline</h2>\n<table>\n<tr><th>#</th><th>pass</th><th>changes</th></tr>\n";
  std::string details;
  const std::string* before = &in.front_end_ir;
  for (size_t i = 0; i < in.passes.size(); ++i) {
    const auto& [name, after] = in.passes[i];
    const Change c = diff_of(*before, after);
    const std::string anchor = fmt::format("pass-{}", i + 1);
    o += c.diff.empty() ? fmt::format("<tr><td>{}</td><td>{}</td><td class=\"unchanged\">unchanged</td></tr>\n", i + 1,
                                      html_escape(name))
                        : fmt::format("<tr><td>{}</td><td><a href=\"#{}\">{}</a></td><td>+{} &minus;{} lines</td></tr>\n",
                                      i + 1, anchor, html_escape(name), c.added, c.removed);
    if (!c.diff.empty())
      details += fmt::format(
          "<h3 id=\"{}\">{}. {}</h3>\n<details class=\"diff\" open><summary>what it changed</summary>\n<pre>{}</pre></details>\n"
          "<details class=\"dump\"><summary>the IR after it</summary>\n<pre>{}</pre></details>\n",
          anchor, i + 1, html_escape(name), diff_html(c.diff), html_escape(after));
    before = &after;
  }
  o += "</table>\n" + details;
  o += "<h3>The front end's IR</h3>\n<details><summary>before the first pass</summary>\n<pre>" +
       html_escape(in.front_end_ir) + "</pre></details>\n";
  return o + "</body></html>\n";
}

}  // namespace pypto::cli

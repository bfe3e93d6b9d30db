// The pictures pypto draws, shared by `pypto memplan`, `pypto graph` and `pypto build --report`:
// the memory plan (passes/memory_plan.h) as a table, JSON or SVG, and the task graph
// (passes/task_graph.h) as DOT, drawn as SVG by Graphviz's dot where it is installed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "passes/memory_plan.h"
#include "passes/task_graph.h"

namespace pypto::cli {

std::string memory_plan_text(const std::vector<passes::KernelPlan>& plan);
std::string memory_plan_json(const std::vector<passes::KernelPlan>& plan, const std::string& program,
                             const std::string& soc);
// One panel per kernel and memory space: statements across, addresses up, one box per tile.
std::string memory_plan_svg(const std::vector<passes::KernelPlan>& plan, const std::string& program,
                            const std::string& soc);

std::string task_graph_dot(const passes::TaskGraph& g, const std::string& program);
// `dot -Tsvg` of `dot_text`; nullopt when Graphviz is not installed (throws when dot fails).
std::optional<std::string> dot_to_svg(const std::string& dot_text);
// The graph for an HTML page: the SVG inline, or the DOT text when there is no SVG.
std::string graph_figure(const std::string& dot_text, const std::optional<std::string>& svg);

// Text for HTML / SVG content and attributes.
std::string html_escape(std::string_view s);

}  // namespace pypto::cli

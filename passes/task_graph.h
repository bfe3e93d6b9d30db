// The orchestration's task graph as the compiler sees it (after the pass pipeline, which has
// outlined the kernels and derived every call's argument directions): one task per kernel call
// in program order, the tensors they touch (entry parameters and tensors the orchestration
// creates; views and results are traced back to them), and dependency edges derived as the
// runtime derives them (a reader after the last writers: RAW; a writer after the last writers:
// WAW, and after the readers since: WAR), at whole-tensor granularity, so two views of one tensor
// are taken to overlap. Loops are folded: each body task appears once, in a region that names the
// loop and its trip count, and a dependency from one iteration to the next is marked carried.
// `pypto graph` renders it (DOT, SVG through Graphviz, HTML).
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace pypto::passes {

struct GraphRegion {
  int parent = -1;    // enclosing region, -1 = the function body
  std::string label;  // "for c in range(0, 256, 64): 4 iterations", "if n > 2", "else"
  bool loop = false;
};

struct GraphTensor {
  std::string name;
  std::string type;     // "[32, 256] FP32"
  bool param = false;   // an entry parameter (else created by the orchestration)
  ir::ParamDirection dir = ir::ParamDirection::In;
};

struct GraphAccess {
  int tensor;
  bool read = false, write = false;
  std::string via;  // the argument as the call names it (a view's name), for labels
};

struct GraphTask {
  std::string kernel;
  ir::Span span;  // the call
  int region = -1;
  std::vector<GraphAccess> accesses;
};

struct GraphEdge {
  int from, to;         // tasks
  std::string reasons;  // "RAW x", "WAR out + WAW out"
  bool carried = false; // from one loop iteration to a later one
};

struct TaskGraph {
  std::string function;  // the orchestration function
  std::vector<GraphRegion> regions;
  std::vector<GraphTensor> tensors;
  std::vector<GraphTask> tasks;
  std::vector<GraphEdge> edges;
};

// The graph of `program`'s orchestration function (the first in name order when it has several);
// an empty graph when it has none.
TaskGraph task_graph(const ir::Program& program);

}  // namespace pypto::passes

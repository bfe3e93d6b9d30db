// The program's call graph (call_graph.h).
#include "ir/call_graph.h"

#include <algorithm>
#include <set>

#include "ir/visitor.h"

namespace pypto::ir {

namespace {

// Callee names of a function (calls to program functions).
class CalleeCollector : public IRVisitor {
 public:
  std::set<std::string> callees;

 protected:
  void visit_call(const Call& c) override {
    if (!c.op && !c.callee.empty()) callees.insert(c.callee);
    IRVisitor::visit_call(c);
  }
};

}  // namespace

std::vector<const Function*> topo_order(const Program& p) {
  std::vector<const Function*> fns;
  for (const auto& f : p.functions)
    if (f) fns.push_back(f.get());
  std::stable_sort(fns.begin(), fns.end(),
                   [](const Function* a, const Function* b) { return a->name < b->name; });
  std::vector<std::set<size_t>> deps(fns.size());
  for (size_t i = 0; i < fns.size(); ++i) {
    CalleeCollector cc;
    cc.visit_function(*fns[i]);
    for (size_t j = 0; j < fns.size(); ++j)
      if (j != i && cc.callees.count(fns[j]->name)) deps[i].insert(j);
  }
  std::vector<const Function*> out;
  std::vector<bool> done(fns.size(), false);
  while (out.size() < fns.size()) {
    size_t pick = fns.size();
    for (size_t i = 0; i < fns.size() && pick == fns.size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (size_t d : deps[i]) ready = ready && done[d];
      if (ready) pick = i;
    }
    if (pick == fns.size()) {  // a call cycle: take the first remaining by name
      for (size_t i = 0; i < fns.size() && pick == fns.size(); ++i)
        if (!done[i]) pick = i;
    }
    done[pick] = true;
    out.push_back(fns[pick]);
  }
  return out;
}

}  // namespace pypto::ir

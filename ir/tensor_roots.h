// Which buffer each tensor-valued Var of a function stands for — its root — the fact both back
// ends print tensors by (a GM pointer in a kernel, a ChipTensor handle in orchestration):
//   * parameters, creations and views (tensor.create / slice / reshape / transpose) are their own
//     roots;
//   * a writer's result (registry `written_tensor`: tile.store, tensor.assemble, tensor.write),
//     an in-place op's result (registry `output_reuses_input`) and a plain copy follow the tensor
//     they write or copy;
//   * a call to a program function returns its Out / InOut tensor arguments in order (a tuple of
//     them when it returns several; `t[i]` is the i-th);
//   * an iter_arg and the loop's return_var follow the loop's init, an if's return_var its arms'
//     yields (a trailing yield may sit inside a trailing scope).
// Where a loop yields a tensor of another root than the one it carries, or an if's arms yield
// tensors of different roots, the carried value would change buffers: such merges are recorded
// as conflicts (the form checks reject them; ReturnParamsExplicit reads the roots).
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/function.h"

namespace pypto::ir {

class TensorRoots {
 public:
  struct Conflict {
    const Var* target;           // the iter_arg / if return_var
    const Var* carried;          // root it carries (loop) or the first arm yields (if)
    const Var* other;            // root the yield gives it
    Span span;                   // the yield
    bool loop;
  };

  TensorRoots(const Program& p, const Function& f);
  const Var* root(const ExprPtr& e) const;  // nullptr when unknown
  const std::vector<Conflict>& conflicts() const { return conflicts_; }

 private:
  const Var* of_value(const Var& dst, const ExprPtr& e);
  template <class Loop>
  void loop(const Loop& l);
  void stmt(const StmtPtr& s);

  const Program& program_;
  std::unordered_map<const Var*, const Var*> roots_;
  std::unordered_map<const Var*, std::vector<const Var*>> tuples_;  // tuple-valued call results
  std::vector<Conflict> conflicts_;
};

}  // namespace pypto::ir

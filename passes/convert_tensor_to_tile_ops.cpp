// ConvertTensorToTileOps — class (b) lowers tensor.* compute inside InCore functions to tile ops
// (loads at entry, stores into Out params). Tile-level kernels (class a) already use tile ops, so
// this version only establishes TileOpsOnly: a tensor.* op inside a kernel is reported as "not
// supported yet" at the op's span instead of being passed on.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class TensorOpFinder : public IRVisitor {
 protected:
  void visit_call(const Call& c) override {
    if (c.op && c.op->family() == "tensor" && c.op->name != "tensor.dim")
      throw CompileError("E501", c.span,
                         fmt::format("tensor-level op 'pl.{}' inside a kernel is not supported yet", c.op->name),
                         "use tile ops in InCore functions: pl.load a tile, compute on tiles, pl.store the result");
    IRVisitor::visit_call(c);
  }
};

}  // namespace

Pass convert_tensor_to_tile_ops_pass() {
  return Pass{"ConvertTensorToTileOps",
              "Lowers tensor ops inside kernels to tile ops (class b, not supported yet); for tile-level "
              "kernels it checks that no tensor op remains in an InCore function.",
              {{Property::SplitIncoreOrch}, {Property::TileOpsOnly}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions) {
                  if (!is_incore_like(f->type)) continue;
                  TensorOpFinder v;
                  v.visit_function(*f);
                }
                return p;
              }};
}

}  // namespace pypto::passes

// Reference semantics of the reductions: row_* reduce the last axis, col_* the one before it,
// keeping it with extent 1 (sum, max, min, prod in double; argmax / argmin give the first index of
// the extreme value), over the operand's valid extent of that axis. Scratch operands (tmp tiles)
// are ignored.
#include <cmath>
#include <limits>

#include "ir/interp/op_semantics.h"

namespace pypto::ir::interp {
namespace {

enum class Red { Sum, Max, Min, Prod, ArgMax, ArgMin };

Value reduce(const OpEval& e, Red how, bool rows) {
  const Array& a = e.arr(0);
  Array out = e.result();
  const int64_t r = a.rank();
  if (r < 2 && !rows) e.fail("a column reduction needs an operand of rank 2 or more");
  const int64_t axis = rows ? r - 1 : r - 2;
  // Over the operand's valid region along the reduced axis (a tile's undefined elements beyond
  // it do not take part).
  const int64_t extent = e.valid(0)[static_cast<size_t>(axis)];
  const int64_t n = out.numel();
  std::vector<int64_t> idx(static_cast<size_t>(r));
  for (int64_t o = 0; o < n; ++o) {
    // The output index with the reduced axis at 0.
    int64_t rest = o;
    for (int64_t d = r; d-- > 0;) {
      const int64_t ext = d == axis ? 1 : a.shape[static_cast<size_t>(d)];
      idx[static_cast<size_t>(d)] = rest % ext;
      rest /= ext;
    }
    double acc = how == Red::Sum ? 0.0 : how == Red::Prod ? 1.0 : std::numeric_limits<double>::quiet_NaN();
    int64_t best = 0;
    for (int64_t k = 0; k < extent; ++k) {
      idx[static_cast<size_t>(axis)] = k;
      const double v = a.at(idx);
      switch (how) {
        case Red::Sum: acc += v; break;
        case Red::Prod: acc *= v; break;
        case Red::Max:
        case Red::ArgMax:
          if (k == 0 || v > acc) acc = v, best = k;
          break;
        case Red::Min:
        case Red::ArgMin:
          if (k == 0 || v < acc) acc = v, best = k;
          break;
      }
    }
    out.set(o, how == Red::ArgMax || how == Red::ArgMin ? double(best) : acc);
  }
  return Value::array(out);
}

}  // namespace

void define_reductions(OpRegistry& r) {
  struct Row {
    const char* name;
    Red how;
  };
  const Row rows[] = {{"sum", Red::Sum},   {"max", Red::Max},       {"min", Red::Min},
                      {"prod", Red::Prod}, {"argmax", Red::ArgMax}, {"argmin", Red::ArgMin}};
  for (const char* fam : {"tensor.", "tile."})
    for (const auto& row : rows)
      for (bool by_row : {true, false}) {
        const std::string name = std::string(fam) + (by_row ? "row_" : "col_") + row.name;
        if (!r.find(name)) continue;
        Red how = row.how;
        define(r, name, [how, by_row](const OpEval& e) { return reduce(e, how, by_row); });
      }
}

}  // namespace pypto::ir::interp

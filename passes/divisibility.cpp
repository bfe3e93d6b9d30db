// Divisibility of index expressions (divisibility.h).
#include "passes/divisibility.h"

#include <numeric>

#include "ir/visitor.h"

namespace pypto::passes {

using namespace ir;

namespace {

class DefScan : public IRVisitor {
 public:
  std::unordered_map<const Var*, ExprPtr>& defs;
  std::unordered_map<const Var*, std::pair<ExprPtr, ExprPtr>>& loops;
  DefScan(std::unordered_map<const Var*, ExprPtr>& d, std::unordered_map<const Var*, std::pair<ExprPtr, ExprPtr>>& l)
      : defs(d), loops(l) {}

 protected:
  void visit_assign(const AssignStmt& s) override {
    if (as_scalar(s.var->type)) defs[s.var.get()] = s.value;
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ForStmt& s) override {
    loops[s.loop_var.get()] = {s.start, s.step};
    IRVisitor::visit_for(s);
  }
};

constexpr int64_t kCap = int64_t(1) << 40;  // products past this count as unknown (1)

}  // namespace

Divisibility::Divisibility(const Function& f) {
  DefScan scan(defs_, loops_);
  scan.visit_function(f);
}

int64_t Divisibility::divisor(const ExprPtr& e) const { return divisor(e, 0); }

bool Divisibility::multiple_of(const ExprPtr& e, int64_t k) const { return k != 0 && divisor(e) % k == 0; }

int64_t Divisibility::divisor(const ExprPtr& e, int depth) const {
  if (!e || depth > 32) return 1;
  if (auto c = const_int_value(e)) return *c < 0 ? -*c : *c;
  if (const auto* b = as<Binary>(e)) {
    const int64_t x = divisor(b->a, depth + 1), y = divisor(b->b, depth + 1);
    switch (b->op) {
      case BinOp::Add:
      case BinOp::Sub: return std::gcd(x, y);
      case BinOp::Mul:
        if (x == 0 || y == 0) return 0;
        return x > kCap / y ? 1 : x * y;
      default: return 1;
    }
  }
  if (const auto* u = as<Unary>(e); u && (u->op == UnOp::Neg || u->op == UnOp::Cast)) return divisor(u->a, depth + 1);
  if (const auto* v = as<Var>(e)) {
    if (auto it = loops_.find(v); it != loops_.end())
      return std::gcd(divisor(it->second.first, depth + 1), divisor(it->second.second, depth + 1));
    if (auto it = defs_.find(v); it != defs_.end()) return divisor(it->second, depth + 1);
  }
  return 1;
}

}  // namespace pypto::passes

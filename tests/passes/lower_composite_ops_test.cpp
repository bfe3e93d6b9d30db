// LowerCompositeOps: tile.sin / tile.cos in a kernel become the range-reduction + polynomial
// recipe of primitive tile ops (Before/Expected, both written out); programs without a composite
// op come back unchanged, a second run changes nothing, recipes inside loop bodies splice into
// the loop; the rule table and the registry's `composite` marker agree; FP16 trigonometry is
// refused at its line; and the recipe, interpreted op by op in FP32, stays within 2e-6 of the
// true sine and cosine from 0 to 2^13.
#include "pass_test_util.h"

#include <cmath>

#include "ir/interp/interpreter.h"
#include "passes/lower_composite_ops.h"

using namespace pypto;

namespace {

// A kernel applying `op` to a [16, 16] FP32 tile; `body` replaces the op's line when given.
std::string kernel(const std::string& op, const std::string& body = {}) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
         "        x_tile = pl.tile.load(x, [0, 0], [16, 16])\n" +
         (body.empty() ? "        y = pl.tile." + op + "(x_tile)\n" : body) +
         "        out = pl.tile.store(y, [0, 0], out)\n        return out\n";
}

ir::ProgramPtr lower(const ir::ProgramPtr& p) { return pass_test::run(passes::lower_composite_ops_pass(), p); }

// The sign and polynomial steps both recipes share; @T is the reduced argument.
const char* kTail =
    "        y_half_k = pl.tile.muls(y_k_f, 0.5)\n"
    "        y_floor_hk_i = pl.tile.cast(y_half_k, target_type=pl.INT32, mode=\"floor\")\n"
    "        y_floor_hk_f = pl.tile.cast(y_floor_hk_i, target_type=pl.FP32, mode=\"none\")\n"
    "        y_floor_x4 = pl.tile.muls(y_floor_hk_f, 4.0)\n"
    "        y_neg2_k = pl.tile.muls(y_k_f, -2.0)\n"
    "        y_sign_pre = pl.tile.add(y_floor_x4, y_neg2_k)\n"
    "        y_sign = pl.tile.adds(y_sign_pre, 1.0)\n"
    "        y_t2sq = pl.tile.mul(@T, @T)\n"
    "        y_p_r0 = pl.tile.muls(y_t2sq, 2.6049265215988271e-06)\n"
    "        y_p_r1 = pl.tile.adds(y_p_r0, -0.00019808944489341229)\n"
    "        y_p_t2_r1 = pl.tile.mul(y_p_r1, y_t2sq)\n"
    "        y_p_r2 = pl.tile.adds(y_p_t2_r1, 0.0083330497145652771)\n"
    "        y_p_t2_r2 = pl.tile.mul(y_p_r2, y_t2sq)\n"
    "        y_p_r3 = pl.tile.adds(y_p_t2_r2, -0.16666658222675323)\n"
    "        y_p_t2_r3 = pl.tile.mul(y_p_r3, y_t2sq)\n"
    "        y_p_one = pl.tile.adds(y_p_t2_r3, 1.0)\n"
    "        y_t_p = pl.tile.mul(@T, y_p_one)\n"
    "        y = pl.tile.mul(y_sign, y_t_p)\n";

// The reduction steps, then the shared tail with `t` (the reduced argument) for @T.
std::string with_t(const std::string& reduction, const std::string& t) {
  std::string tail = kTail;
  for (size_t at = 0; (at = tail.find("@T", at)) != std::string::npos; at += t.size()) tail.replace(at, 2, t);
  return reduction + tail;
}

// Hand-chosen points: zero, multiples of pi/2 and pi/4, both signs, and far from the origin.
const double kPoints[] = {0.0, 0.5, -0.5, 1.5707963, -1.5707963, 3.14159265, -3.14159265, 0.785398, 2.356194, 4.712389,
                          -7.0, 10.0, 100.0, -123.456, 1000.0, 2345.678, -4000.25, 8191.5};

}  // namespace

TEST_CASE("tile.sin becomes round(x/pi), a four-part pi reduction, the sign (-1)^k and the polynomial",
          "[LowerCompositeOps]") {
  const std::string reduction =
      "        y_pi_inv_x = pl.tile.muls(x_tile, 0.31830987334251404)\n"
      "        y_k_i = pl.tile.cast(y_pi_inv_x, target_type=pl.INT32, mode=\"round\")\n"
      "        y_k_f = pl.tile.cast(y_k_i, target_type=pl.FP32, mode=\"none\")\n"
      "        y_k_pi_v2 = pl.tile.muls(y_k_f, 3.140625)\n"
      "        y_t0 = pl.tile.sub(x_tile, y_k_pi_v2)\n"
      "        y_k_pi_c1 = pl.tile.muls(y_k_f, 0.0009670257568359375)\n"
      "        y_t1 = pl.tile.sub(y_t0, y_k_pi_c1)\n"
      "        y_k_pi_c2 = pl.tile.muls(y_k_f, 6.2771141529083252e-07)\n"
      "        y_t2 = pl.tile.sub(y_t1, y_k_pi_c2)\n"
      "        y_k_pi_c3 = pl.tile.muls(y_k_f, 1.2164491636212915e-10)\n"
      "        y_t3 = pl.tile.sub(y_t2, y_k_pi_c3)\n"
      "        y_k_pi_c4 = pl.tile.muls(y_k_f, -1.0290622927356871e-13)\n"
      "        y_t4 = pl.tile.sub(y_t3, y_k_pi_c4)\n";
  pass_test::require_equal(lower(pass_test::parse(kernel("sin"))),
                           pass_test::parse(kernel("sin", with_t(reduction, "y_t4"))));
}

TEST_CASE("tile.cos reduces x + pi/2 instead: rint(x/pi + 1/2), pi/2 added as head and tail", "[LowerCompositeOps]") {
  const std::string reduction =
      "        y_pi_inv_x = pl.tile.muls(x_tile, 0.31830987334251404)\n"
      "        y_k_pre = pl.tile.adds(y_pi_inv_x, 0.5)\n"
      "        y_k_i = pl.tile.cast(y_k_pre, target_type=pl.INT32, mode=\"rint\")\n"
      "        y_k_f = pl.tile.cast(y_k_i, target_type=pl.FP32, mode=\"none\")\n"
      "        y_k_pi_v2 = pl.tile.muls(y_k_f, 3.140625)\n"
      "        y_t0 = pl.tile.sub(x_tile, y_k_pi_v2)\n"
      "        y_k_pi_c1 = pl.tile.muls(y_k_f, 0.0009670257568359375)\n"
      "        y_t1 = pl.tile.sub(y_t0, y_k_pi_c1)\n"
      "        y_t1h = pl.tile.adds(y_t1, 1.5707963705062866)\n"
      "        y_k_pi_c2 = pl.tile.muls(y_k_f, 6.2771141529083252e-07)\n"
      "        y_t2 = pl.tile.sub(y_t1h, y_k_pi_c2)\n"
      "        y_k_pi_c3 = pl.tile.muls(y_k_f, 1.2164491636212915e-10)\n"
      "        y_t3 = pl.tile.sub(y_t2, y_k_pi_c3)\n"
      "        y_k_pi_c4 = pl.tile.muls(y_k_f, -1.0290622927356871e-13)\n"
      "        y_t4 = pl.tile.sub(y_t3, y_k_pi_c4)\n"
      "        y_t4t = pl.tile.adds(y_t4, -4.3711388286737929e-08)\n";
  pass_test::require_equal(lower(pass_test::parse(kernel("cos"))),
                           pass_test::parse(kernel("cos", with_t(reduction, "y_t4t"))));
}

TEST_CASE("no composite op: the program itself; a second run changes nothing; loop bodies splice",
          "[LowerCompositeOps]") {
  auto plain = pass_test::parse(kernel("exp"));
  CHECK(lower(plain) == plain);
  auto once = lower(pass_test::parse(kernel("sin")));
  CHECK(lower(once) == once);
  // Inside a loop: the recipe replaces the op's statement in the loop body, nothing else moves.
  auto looped = lower(pass_test::parse(kernel(
      "", "        y = x_tile\n        for i in pl.range(2):\n            z = pl.tile.cos(y)\n            y = pl.tile.adds(z, 1.0)\n")));
  const std::string text = ir::print_program(*looped);
  CHECK(text.find("tile.cos") == std::string::npos);
  CHECK(text.find("pl.tile.cast(z_k_pre, target_type=pl.INT32, mode=\"rint\")") != std::string::npos);
  CHECK(text.find("= pl.tile.mul(z_sign, z_t_p)") != std::string::npos);
}

TEST_CASE("the rule table and the registry's composite marker agree", "[LowerCompositeOps][ops]") {
  CHECK(passes::composite_rules_unknown().empty());
  int composite = 0;
  for (const ir::OpDef* op : ir::OpRegistry::instance().all()) {
    INFO(op->name);
    CHECK(op->composite == passes::has_composite_rule(*op));
    composite += op->composite;
  }
  CHECK(composite == 2);  // tile.sin, tile.cos
}

TEST_CASE("trigonometry of other than FP32 elements is refused at its line, with a cast as the hint", "[LowerCompositeOps]") {
  const std::string text =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def k(self, x: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:\n"
      "        x_tile = pl.tile.load(x, [0, 0], [16, 16])\n"
      "        y = pl.tile.sin(x_tile)\n"
      "        out = pl.tile.store(y, [0, 0], out)\n        return out\n";
  const auto d = pass_test::first_diagnostic_of([&] { pass_test::parse(text); });
  CHECK(d.span.line == 8);
  CHECK(d.message.find("FP32") != std::string::npos);
  INFO(d.message << " / " << d.hint);
  CHECK(d.hint.find("pl.cast(x_tile, pl.FP32)") != std::string::npos);
}

TEST_CASE("the recipe, in FP32 op by op, is within 2e-6 of sin and cos from 0 to 2^13", "[LowerCompositeOps][interp]") {
  for (const char* op : {"sin", "cos"}) {
    auto p = lower(pass_test::parse(kernel(op)));
    ir::interp::EvalInputs in;
    ir::interp::Array x = ir::interp::Array::zeros(ir::DataType::FP32, {16, 16});
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) {
      // The hand-chosen points, then a sweep of 0 .. 8192 and its negatives.
      const double v = i < int64_t(std::size(kPoints)) ? kPoints[i] : (i % 2 ? -1.0 : 1.0) * 8192.0 * i / n;
      x.set(i, double(float(v)));
    }
    in.tensors["x"] = x;
    const auto outs = ir::interp::evaluate(*p, *p->find("k"), in);
    REQUIRE(outs.size() == 1);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double xi = x.at(i);
      const double want = std::string(op) == "sin" ? std::sin(xi) : std::cos(xi);
      worst = std::max(worst, std::abs(outs[0].value.at(i) - want));
    }
    INFO(op << ": max abs error " << worst);
    CHECK(worst < 2e-6);
  }
}

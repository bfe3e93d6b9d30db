// Printer tests: IR built with the C++ API, printed, and compared against text written by hand
// from ir/TEXT_FORMAT.md (literals, precedence, types, statements, names, kwargs, programs).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ir/ir.h"
#include "ir/printer.h"

using namespace pypto::ir;

namespace {

TypePtr idx() { return scalar_type(DataType::INDEX); }
TypePtr boolean() { return scalar_type(DataType::BOOL); }

std::vector<ExprPtr> ints(std::vector<int64_t> v) {
  std::vector<ExprPtr> out;
  for (int64_t x : v) out.push_back(make_int(x));
  return out;
}
TypePtr tensor_t(std::vector<int64_t> shape, DataType dt = DataType::FP32) {
  return std::make_shared<TensorType>(dt, ints(std::move(shape)));
}
TypePtr tile_t(std::vector<int64_t> shape, DataType dt = DataType::FP32, std::optional<MemorySpace> sp = {}) {
  return std::make_shared<TileType>(dt, ints(std::move(shape)), sp);
}
VarPtr var(const std::string& n, TypePtr t = idx()) { return make_var(n, std::move(t)); }
ExprPtr bin(BinOp op, ExprPtr a, ExprPtr b) {
  TypePtr t = is_comparison(op) || op == BinOp::And || op == BinOp::Or ? boolean() : a->type;
  return std::make_shared<Binary>(op, std::move(a), std::move(b), std::move(t), Span{});
}
ExprPtr un(UnOp op, ExprPtr a, TypePtr t = nullptr) {
  if (!t) t = a->type;
  return std::make_shared<Unary>(op, std::move(a), std::move(t), Span{});
}
ExprPtr list(std::vector<ExprPtr> es) {
  std::vector<TypePtr> ts;
  for (const auto& e : es) ts.push_back(e->type);
  return std::make_shared<MakeTuple>(std::move(es), std::make_shared<TupleType>(ts), Span{});
}
StmtPtr assign(VarPtr v, ExprPtr e) { return std::make_shared<AssignStmt>(std::move(v), std::move(e), Span{}); }
StmtPtr eval(ExprPtr e) { return std::make_shared<EvalStmt>(std::move(e), Span{}); }
StmtPtr ret(std::vector<ExprPtr> v) { return std::make_shared<ReturnStmt>(std::move(v), Span{}); }
StmtPtr yield(std::vector<ExprPtr> v) { return std::make_shared<YieldStmt>(std::move(v), Span{}); }
StmtPtr seq(std::vector<StmtPtr> s) { return make_body(std::move(s)); }

FunctionPtr func(std::string name, std::vector<VarPtr> params, std::vector<TypePtr> rets, StmtPtr body,
                 FunctionType type = FunctionType::Opaque, std::vector<ParamDirection> dirs = {}) {
  auto f = std::make_shared<Function>();
  f->name = std::move(name);
  if (dirs.empty()) dirs.assign(params.size(), ParamDirection::In);
  f->params = std::move(params);
  f->param_directions = std::move(dirs);
  f->return_types = std::move(rets);
  f->body = std::move(body);
  f->type = type;
  return f;
}

MemRef memref(VarPtr base, int64_t offset, int64_t size) {
  return MemRef{std::move(base), make_int(offset, {}, DataType::INT64), size};
}

}  // namespace

TEST_CASE("float literals use the shortest round-trip form with a '.' or 'e'", "[printer]") {
  CHECK(format_float(2.0) == "2.0");
  CHECK(format_float(0.1) == "0.1");
  CHECK(format_float(1e-6) == "1e-06");
  CHECK(format_float(1e16) == "1e+16");
  CHECK(format_float(1e15) == "1000000000000000.0");
  CHECK(format_float(123456.0) == "123456.0");
  CHECK(format_float(-0.0) == "-0.0");
  CHECK(format_float(1.0 / 3) == "0.3333333333333333");
}

TEST_CASE("literal forms", "[printer]") {
  CHECK(print_expr(make_int(5)) == "5");
  CHECK(print_expr(make_int(-7)) == "-7");
  CHECK(print_expr(make_int(5, {}, DataType::INT64)) == "pl.const(5, pl.INT64)");
  CHECK(print_expr(make_int(-1, {}, DataType::INT32)) == "pl.const(-1, pl.INT32)");
  CHECK(print_expr(make_int(3, {}, DataType::UINT8)) == "pl.const(3, pl.UINT8)");
  CHECK(print_expr(make_float(2.0)) == "2.0");
  CHECK(print_expr(make_float(1e-6)) == "1e-06");
  CHECK(print_expr(make_float(-2.5)) == "-2.5");
  CHECK(print_expr(make_float(1.5, {}, DataType::FP16)) == "pl.const(1.5, pl.FP16)");
  CHECK(print_expr(make_float(2.0, {}, DataType::BF16)) == "pl.const(2.0, pl.BF16)");
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(print_expr(make_float(inf)) == "pl.const(\"inf\", pl.FP32)");
  CHECK(print_expr(make_float(-inf)) == "pl.const(\"-inf\", pl.FP32)");
  CHECK(print_expr(make_float(std::nan(""))) == "pl.const(\"nan\", pl.FP32)");
  CHECK(print_expr(make_float(-inf, {}, DataType::FP16)) == "pl.const(\"-inf\", pl.FP16)");
  CHECK(print_expr(make_bool(true)) == "True");
  CHECK(print_expr(make_bool(false)) == "False");
}

TEST_CASE("operators print with minimal parentheses by Python precedence", "[printer]") {
  auto a = var("a"), b = var("b"), c = var("c"), d = var("d");
  auto p = var("p", boolean()), q = var("q", boolean()), r = var("r", boolean());
  using B = BinOp;
  CHECK(print_expr(bin(B::Add, a, bin(B::Mul, b, c))) == "a + b * c");
  CHECK(print_expr(bin(B::Mul, bin(B::Add, a, b), c)) == "(a + b) * c");
  CHECK(print_expr(bin(B::Sub, bin(B::Sub, a, b), c)) == "a - b - c");
  CHECK(print_expr(bin(B::Sub, a, bin(B::Sub, b, c))) == "a - (b - c)");
  CHECK(print_expr(bin(B::Add, a, bin(B::Add, b, c))) == "a + (b + c)");
  CHECK(print_expr(bin(B::Mul, a, bin(B::FloorDiv, b, c))) == "a * (b // c)");
  CHECK(print_expr(bin(B::FloorMod, bin(B::Mul, a, b), c)) == "a * b % c");
  CHECK(print_expr(bin(B::FloatDiv, a, b)) == "a / b");
  // Power is right-associative and binds tighter than unary minus on its left.
  CHECK(print_expr(bin(B::Pow, a, bin(B::Pow, b, c))) == "a ** b ** c");
  CHECK(print_expr(bin(B::Pow, bin(B::Pow, a, b), c)) == "(a ** b) ** c");
  CHECK(print_expr(un(UnOp::Neg, bin(B::Pow, a, b))) == "-a ** b");
  CHECK(print_expr(bin(B::Pow, un(UnOp::Neg, a), b)) == "(-a) ** b");
  CHECK(print_expr(bin(B::Pow, a, un(UnOp::Neg, b))) == "a ** -b");
  CHECK(print_expr(bin(B::Pow, make_int(-2), a)) == "(-2) ** a");
  CHECK(print_expr(un(UnOp::Neg, un(UnOp::Neg, a))) == "-(-a)");
  CHECK(print_expr(un(UnOp::Neg, bin(B::Add, a, b))) == "-(a + b)");
  CHECK(print_expr(bin(B::Mul, a, make_int(-3))) == "a * -3");
  CHECK(print_expr(bin(B::Sub, a, make_int(-3))) == "a - -3");
  // Comparisons never chain.
  CHECK(print_expr(bin(B::Lt, bin(B::Add, a, b), bin(B::Mul, c, make_int(2)))) == "a + b < c * 2");
  CHECK(print_expr(bin(B::Eq, bin(B::Lt, a, b), p)) == "(a < b) == p");
  CHECK(print_expr(bin(B::Ne, p, bin(B::Ge, a, b))) == "p != (a >= b)");
  // Boolean operators.
  CHECK(print_expr(bin(B::And, bin(B::Or, p, q), r)) == "(p or q) and r");
  CHECK(print_expr(bin(B::Or, bin(B::And, p, q), r)) == "p and q or r");
  CHECK(print_expr(un(UnOp::Not, bin(B::And, p, q))) == "not (p and q)");
  CHECK(print_expr(bin(B::And, un(UnOp::Not, p), q)) == "not p and q");
  CHECK(print_expr(un(UnOp::Not, bin(B::Eq, a, b))) == "not a == b");
  CHECK(print_expr(bin(B::Eq, un(UnOp::Not, p), q)) == "(not p) == q");
  // Bitwise operators: & binds tighter than ^ tighter than |; shifts tighter than &.
  CHECK(print_expr(bin(B::BitOr, bin(B::BitAnd, a, b), bin(B::BitXor, c, d))) == "a & b | c ^ d");
  CHECK(print_expr(bin(B::BitAnd, bin(B::BitOr, a, b), c)) == "(a | b) & c");
  CHECK(print_expr(bin(B::Shl, a, bin(B::Add, b, make_int(1)))) == "a << b + 1");
  CHECK(print_expr(bin(B::Add, bin(B::Shr, a, b), make_int(1))) == "(a >> b) + 1");
  CHECK(print_expr(un(UnOp::BitNot, a)) == "~a");
  CHECK(print_expr(un(UnOp::BitNot, bin(B::BitOr, a, b))) == "~(a | b)");
  // Function forms.
  CHECK(print_expr(bin(B::Min, bin(B::Add, a, b), c)) == "pl.min(a + b, c)");
  CHECK(print_expr(bin(B::Mul, bin(B::Max, a, b), c)) == "pl.max(a, b) * c");
  CHECK(print_expr(un(UnOp::Abs, bin(B::Sub, a, b))) == "pl.abs(a - b)");
  CHECK(print_expr(un(UnOp::Cast, a, scalar_type(DataType::FP32))) == "pl.cast(a, pl.FP32)");
  CHECK(print_expr(bin(B::Mul, un(UnOp::Cast, bin(B::Add, a, b), scalar_type(DataType::FP32)), make_float(0.5))) ==
        "pl.cast(a + b, pl.FP32) * 0.5");
}

TEST_CASE("tuples and tuple items", "[printer]") {
  auto a = var("a");
  CHECK(print_expr(list({a, make_int(0)})) == "[a, 0]");
  CHECK(print_expr(list({})) == "[]");
  auto t = var("t", std::make_shared<TupleType>(std::vector<TypePtr>{idx(), idx()}));
  CHECK(print_expr(std::make_shared<TupleGetItem>(t, 1, idx(), Span{})) == "t[1]");
}

TEST_CASE("type annotations", "[printer]") {
  CHECK(print_type(idx()) == "pl.Scalar[pl.INDEX]");
  CHECK(print_type(scalar_type(DataType::BF16)) == "pl.Scalar[pl.BF16]");
  CHECK(print_type(ptr_type()) == "pl.Ptr");
  CHECK(print_type(tensor_t({64, 128})) == "pl.Tensor[[64, 128], pl.FP32]");
  CHECK(print_type(tile_t({16, 16}, DataType::FP16, MemorySpace::Left)) == "pl.Tile[[16, 16], pl.FP16, pl.Mem.Left]");
  CHECK(print_type(tile_t({16, 16})) == "pl.Tile[[16, 16], pl.FP32]");
  CHECK(print_type(std::make_shared<TupleType>(std::vector<TypePtr>{idx(), tensor_t({8})})) ==
        "pl.Tuple[pl.Scalar[pl.INDEX], pl.Tensor[[8], pl.FP32]]");

  auto m = var("M");
  CHECK(print_type(std::make_shared<TensorType>(DataType::FP32, std::vector<ExprPtr>{m, make_int(128)})) ==
        "pl.Tensor[[M, 128], pl.FP32]");

  TensorView tv;
  tv.stride = ints({128, 1});
  tv.layout = TensorLayout::DN;
  tv.pad = PadValue::zero;
  CHECK(print_type(std::make_shared<TensorType>(DataType::FP32, ints({64, 128}), tv)) ==
        "pl.Tensor[[64, 128], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.DN, pad=pl.PadValue.zero)]");
  TensorView vs;
  vs.valid_shape = {m, make_int(128)};
  CHECK(print_type(std::make_shared<TensorType>(DataType::FP32, ints({64, 128}), vs)) ==
        "pl.Tensor[[64, 128], pl.FP32, pl.TensorView(valid_shape=[M, 128])]");
  CHECK(print_type(std::make_shared<TensorType>(DataType::FP16, ints({4}), TensorView{})) ==
        "pl.Tensor[[4], pl.FP16, pl.TensorView()]");

  // Outside a function a MemRef base has no binding site, so it prints as a string.
  auto ddr = var("mem_ddr_0", ptr_type());
  CHECK(print_type(std::make_shared<TensorType>(DataType::FP32, ints({64, 128}), std::nullopt, memref(ddr, 0, 32768))) ==
        "pl.Tensor[[64, 128], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 32768)]");

  TileView full;
  full.valid_shape = {make_int(32), m};
  full.stride = ints({128, 1});
  full.start_offset = make_int(64);
  full.blayout = TileLayout::row_major;
  full.slayout = TileLayout::none_box;
  full.fractal = 512;
  full.pad = PadValue::max;
  full.compact = CompactMode::normal;
  auto vec = var("mem_vec_0", ptr_type());
  CHECK(print_type(std::make_shared<TileType>(DataType::FP32, ints({64, 128}), MemorySpace::Vec, full,
                                              memref(vec, 512, 32768))) ==
        "pl.Tile[[64, 128], pl.FP32, pl.MemRef(\"mem_vec_0\", pl.const(512, pl.INT64), 32768), pl.Mem.Vec, "
        "pl.TileView(valid_shape=[32, M], stride=[128, 1], start_offset=64, blayout=pl.TileLayout.row_major, "
        "slayout=pl.TileLayout.none_box, fractal=512, pad=pl.PadValue.max, compact=pl.CompactMode.normal)]");
  TileView some;
  some.blayout = TileLayout::col_major;
  CHECK(print_type(std::make_shared<TileType>(DataType::FP16, ints({16, 1}), std::nullopt, some)) ==
        "pl.Tile[[16, 1], pl.FP16, pl.TileView(blayout=pl.TileLayout.col_major)]");
}

TEST_CASE("kwargs equal to the registry default are omitted; attributes print as keywords", "[printer]") {
  auto t = var("t", tile_t({16, 16}, DataType::FP32, MemorySpace::Vec));
  CHECK(print_expr(make_call("tile.cast", {t}, {{"target_type", DataType::FP16}}, {})) ==
        "pl.tile.cast(t, target_type=pl.FP16)");
  CHECK(print_expr(make_call("tile.cast", {t}, {{"target_type", DataType::FP16}, {"mode", std::string("floor")}}, {})) ==
        "pl.tile.cast(t, target_type=pl.FP16, mode=\"floor\")");
  CHECK(print_expr(make_call("tensor.create", {list(ints({64, 128}))}, {{"dtype", DataType::FP32}}, {})) ==
        "pl.tensor.create([64, 128], dtype=pl.FP32)");
  CHECK(print_expr(make_call("tensor.create", {list(ints({64, 128}))},
                             {{"dtype", DataType::FP32}, {"manual_dep", true}}, {})) ==
        "pl.tensor.create([64, 128], dtype=pl.FP32, manual_dep=True)");
  auto x = var("x", tensor_t({64, 128}));
  auto r = var("r");
  CHECK(print_expr(make_call("tile.load", {x, list({r, make_int(0)}), list(ints({16, 16}))}, {}, {})) ==
        "pl.tile.load(x, [r, 0], [16, 16])");
  CHECK(print_expr(make_call("tile.load", {x, list({r, make_int(0)}), list(ints({16, 16}))},
                             {{"target_memory", MemorySpace::Mat}}, {})) ==
        "pl.tile.load(x, [r, 0], [16, 16], target_memory=pl.Mem.Mat)");
  CHECK(print_expr(make_call("tile.alloc", {}, {{"memory_space", MemorySpace::Vec}, {"size", int64_t(16384)}}, {})) ==
        "pl.tile.alloc(memory_space=pl.Mem.Vec, size=16384)");
  CHECK(print_expr(make_call("tile.adds", {t, make_float(2.0)}, {}, {})) == "pl.tile.adds(t, 2.0)");
  CHECK(print_expr(make_call("system.bar_v", {}, {}, {})) == "pl.system.bar_v()");
}

TEST_CASE("attribute value spellings", "[printer]") {
  CHECK(print_attr(AttrValue{}) == "None");
  CHECK(print_attr(true) == "True");
  CHECK(print_attr(int64_t(-4)) == "-4");
  CHECK(print_attr(1.0) == "1.0");
  CHECK(print_attr(std::string("a\"b\\c\n")) == "\"a\\\"b\\\\c\\n\"");
  CHECK(print_attr(DataType::INT8) == "pl.INT8");
  CHECK(print_attr(MemorySpace::Acc) == "pl.Mem.Acc");
  CHECK(print_attr(TileLayout::col_major) == "pl.TileLayout.col_major");
  CHECK(print_attr(TensorLayout::NZ) == "pl.TensorLayout.NZ");
  CHECK(print_attr(PadValue::min) == "pl.PadValue.min");
  CHECK(print_attr(CompactMode::normal) == "pl.CompactMode.normal");
  CHECK(print_attr(EnumLit{"PipeType", "MTE2"}) == "pl.PipeType.MTE2");
}

TEST_CASE("the TEXT_FORMAT example program", "[printer]") {
  auto t64 = tensor_t({64, 128});
  // kernel
  auto x = var("x", t64), r = var("r"), out = var("out", t64);
  auto t = var("t", tile_t({64, 128}, DataType::FP32, MemorySpace::Vec));
  auto u = var("u", tile_t({64, 128}));
  auto out1 = var("out", t64);
  auto load = make_call("tile.load", {x, list({r, make_int(0)}), list(ints({64, 128})), list(ints({64, 128}))}, {}, {});
  auto adds = make_call("tile.adds", {t, make_float(2.0)}, {}, {});
  auto store = make_call("tile.store", {u, list({r, make_int(0)}), out}, {}, {});
  auto first = assign(t, load);
  std::const_pointer_cast<Stmt>(first)->leading_comments = {"leading comments of a statement"};  // as the front end keeps it: the text after "# "
  auto kernel = func("kernel", {x, r, out}, {t64}, seq({first, assign(u, adds), assign(out1, store), ret({out1})}),
                     FunctionType::InCore, {ParamDirection::In, ParamDirection::In, ParamDirection::Out});
  // main
  auto mx = var("x", t64), mout = var("out", t64);
  auto i = var("i");
  auto acc = std::make_shared<IterArg>("acc", t64, mout, Span{});
  auto mr = var("r");
  auto acc1 = var("acc", t64), acc2 = var("acc", t64);
  auto call = std::make_shared<Call>(nullptr, "kernel", std::vector<ExprPtr>{mx, mr, acc},
                                     std::vector<std::pair<std::string, AttrValue>>{}, t64, Span{},
                                     std::vector<ArgDirection>{ArgDirection::input, ArgDirection::scalar, ArgDirection::inout});
  auto loop = std::make_shared<ForStmt>(
      i, make_int(0), make_int(4), make_int(1), std::vector<IterArgPtr>{acc},
      seq({assign(mr, bin(BinOp::Mul, i, make_int(16))), assign(acc1, call), yield({acc1})}),
      std::vector<VarPtr>{acc2}, ForKind::Sequential, Span{});
  auto main = func("main", {mx, mout}, {t64}, seq({loop, ret({acc2})}), FunctionType::Orchestration,
                   {ParamDirection::In, ParamDirection::Out});
  auto prog = make_program("Example", {main, kernel}, {var("M")});

  const std::string expected =
      "# pypto.program: Example\n"
      "import pypto.language as pl\n"
      "\n"
      "M = pl.dynamic(\"M\")\n"
      "\n"
      "@pl.program\n"
      "class Example:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def kernel(self, x: pl.Tensor[[64, 128], pl.FP32], r: pl.Scalar[pl.INDEX], "
      "out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:\n"
      "        # leading comments of a statement\n"
      "        t: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [r, 0], [64, 128], [64, 128])\n"
      "        u: pl.Tile[[64, 128], pl.FP32] = pl.tile.adds(t, 2.0)\n"
      "        out_1: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(u, [r, 0], out)\n"
      "        return out_1\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) "
      "-> pl.Tensor[[64, 128], pl.FP32]:\n"
      "        for i, (acc,) in pl.range(4, init_values=(out,)):\n"
      "            r: pl.Scalar[pl.INDEX] = i * 16\n"
      "            acc_1: pl.Tensor[[64, 128], pl.FP32] = self.kernel(x, r, acc, "
      "attrs={\"arg_directions\": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})\n"
      "            acc_2 = pl.yield_(acc_1)\n"
      "        return acc_2\n";
  CHECK(print_program(*prog) == expected);
  // Printing is deterministic.
  CHECK(print_program(*prog) == print_program(*prog));
}

TEST_CASE("functions print callees first, ties by name", "[printer]") {
  auto callee = [](const std::string& n) {
    return std::make_shared<Call>(nullptr, n, std::vector<ExprPtr>{}, std::vector<std::pair<std::string, AttrValue>>{},
                                  nullptr, Span{});
  };
  // a_main calls z_leaf and m_mid; m_mid calls z_leaf; b_other calls nothing.
  auto z = func("z_leaf", {}, {}, ret({}));
  auto m = func("m_mid", {}, {}, seq({eval(callee("z_leaf")), ret({})}));
  auto a = func("a_main", {}, {}, seq({eval(callee("m_mid")), eval(callee("z_leaf"))}));
  auto b = func("b_other", {}, {}, nullptr);
  auto prog = make_program("Order", {a, b, m, z});
  const std::string expected =
      "# pypto.program: Order\n"
      "import pypto.language as pl\n"
      "\n"
      "@pl.program\n"
      "class Order:\n"
      "    @pl.function\n"
      "    def b_other(self):\n"
      "        pass\n"
      "\n"
      "    @pl.function\n"
      "    def z_leaf(self):\n"
      "        return\n"
      "\n"
      "    @pl.function\n"
      "    def m_mid(self):\n"
      "        self.z_leaf()\n"
      "        return\n"
      "\n"
      "    @pl.function\n"
      "    def a_main(self):\n"
      "        self.m_mid()\n"
      "        self.z_leaf()\n";
  CHECK(print_program(*prog) == expected);
}

TEST_CASE("decorator fields, SubWorker without self, function comments, tuple returns", "[printer]") {
  auto a = var("a", tensor_t({8})), n = var("n");
  auto f = func("worker", {a, n}, {tensor_t({8}), idx()}, ret({a, n}), FunctionType::AIV,
                {ParamDirection::InOut, ParamDirection::In});
  auto fm = std::const_pointer_cast<Function>(f);
  fm->level = Level::AIV;
  fm->role = Role::SubWorker;
  fm->auto_scope = false;
  fm->leading_comments = {"Adds things.", "second line\nthird line"};
  CHECK(print_function(*f) ==
        "# Adds things.\n"
        "# second line\n"
        "# third line\n"
        "@pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker, auto_scope=False)\n"
        "def worker(a: pl.InOut[pl.Tensor[[8], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> "
        "tuple[pl.Tensor[[8], pl.FP32], pl.Scalar[pl.INDEX]]:\n"
        "    return a, n\n");
}

TEST_CASE("loops: ranges, kinds, carries, while", "[printer]") {
  auto n = var("n");
  auto i = var("i");
  auto body = eval(make_call("system.bar_v", {}, {}, {}));
  auto for_ = [&](ExprPtr start, ExprPtr stop, ExprPtr step, ForKind k, int64_t stage = 0) {
    return print_stmt(std::make_shared<ForStmt>(i, start, stop, step, std::vector<IterArgPtr>{}, body,
                                                std::vector<VarPtr>{}, k, Span{}, stage));
  };
  CHECK(for_(make_int(0), n, make_int(1), ForKind::Sequential) == "for i in pl.range(n):\n    pl.system.bar_v()\n");
  CHECK(for_(make_int(1), n, make_int(1), ForKind::Sequential) == "for i in pl.range(1, n):\n    pl.system.bar_v()\n");
  CHECK(for_(make_int(0), make_int(8), make_int(2), ForKind::Parallel) ==
        "for i in pl.parallel(0, 8, 2):\n    pl.system.bar_v()\n");
  CHECK(for_(make_int(0, {}, DataType::INT64), make_int(8), make_int(1), ForKind::Unroll) ==
        "for i in pl.unroll(pl.const(0, pl.INT64), 8):\n    pl.system.bar_v()\n");
  CHECK(for_(make_int(0), make_int(8), make_int(1), ForKind::Pipeline, 2) ==
        "for i in pl.pipeline(8, stage=2):\n    pl.system.bar_v()\n");

  // Two carries; the yield inside the body names the loop's return vars.
  auto x0 = var("x0"), y0 = var("y0");
  auto a = std::make_shared<IterArg>("a", idx(), x0, Span{});
  auto b = std::make_shared<IterArg>("b", idx(), y0, Span{});
  auto s = var("s"), ra = var("ra"), rb = var("rb");
  auto loop = std::make_shared<ForStmt>(i, make_int(0), n, make_int(1), std::vector<IterArgPtr>{a, b},
                                        seq({assign(s, bin(BinOp::Add, a, b)), yield({s, a})}),
                                        std::vector<VarPtr>{ra, rb}, ForKind::Sequential, Span{});
  CHECK(print_stmt(loop) ==
        "for i, (a, b) in pl.range(n, init_values=(x0, y0)):\n"
        "    s: pl.Scalar[pl.INDEX] = a + b\n"
        "    ra, rb = pl.yield_(s, a)\n");

  // While with a carry; the condition is the first body statement.
  auto c = std::make_shared<IterArg>("c", idx(), x0, Span{});
  auto c1 = var("c"), cr = var("c");
  auto w = std::make_shared<WhileStmt>(bin(BinOp::Lt, c, n), std::vector<IterArgPtr>{c},
                                       seq({assign(c1, bin(BinOp::Add, c, make_int(1))), yield({c1})}),
                                       std::vector<VarPtr>{cr}, Span{});
  CHECK(print_stmt(w) ==
        "for (c,) in pl.while_(init_values=(x0,)):\n"
        "    pl.cond(c < n)\n"
        "    c_1: pl.Scalar[pl.INDEX] = c + 1\n"
        "    c_2 = pl.yield_(c_1)\n");
  // Without carries: a natural while loop; break / continue.
  auto p = var("p", boolean());
  auto w2 = std::make_shared<WhileStmt>(p, std::vector<IterArgPtr>{},
                                        seq({std::make_shared<ContinueStmt>(Span{}), std::make_shared<BreakStmt>(Span{})}),
                                        std::vector<VarPtr>{}, Span{});
  CHECK(print_stmt(w2) == "while p:\n    continue\n    break\n");
  // A non-SSA loop without carries prints no (empty) yield.
  auto l2 = std::make_shared<ForStmt>(i, make_int(0), n, make_int(1), std::vector<IterArgPtr>{}, seq({body, yield({})}),
                                      std::vector<VarPtr>{}, ForKind::Sequential, Span{});
  CHECK(print_stmt(l2) == "for i in pl.range(n):\n    pl.system.bar_v()\n");
}

TEST_CASE("if with and without yields", "[printer]") {
  auto p = var("p", boolean()), a = var("a"), b = var("b"), r = var("r");
  auto with_yield = std::make_shared<IfStmt>(bin(BinOp::Gt, a, b), yield({a}), yield({b}), std::vector<VarPtr>{r}, Span{});
  CHECK(print_stmt(with_yield) ==
        "if a > b:\n"
        "    r = pl.yield_(a)\n"
        "else:\n"
        "    r = pl.yield_(b)\n");
  auto no_else = std::make_shared<IfStmt>(p, eval(make_call("system.bar_v", {}, {}, {})), nullptr,
                                          std::vector<VarPtr>{}, Span{});
  CHECK(print_stmt(no_else) == "if p:\n    pl.system.bar_v()\n");
  auto empty_then = std::make_shared<IfStmt>(p, seq({}), ret({}), std::vector<VarPtr>{}, Span{});
  empty_then->leading_comments = {"note"};
  CHECK(print_stmt(empty_then) == "# note\nif p:\n    pass\nelse:\n    return\n");
}

TEST_CASE("scopes", "[printer]") {
  auto body = eval(make_call("system.bar_v", {}, {}, {}));
  auto scope = [&](ScopeKind k) { return std::make_shared<ScopeStmt>(k, body, Span{}); };
  auto incore = scope(ScopeKind::InCore);
  CHECK(print_stmt(incore) == "with pl.at(level=pl.Level.CORE_GROUP):\n    pl.system.bar_v()\n");
  std::const_pointer_cast<ScopeStmt>(incore)->name_hint = "k";
  CHECK(print_stmt(incore) == "with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"k\"):\n    pl.system.bar_v()\n");
  CHECK(print_stmt(scope(ScopeKind::Cluster)) == "with pl.cluster():\n    pl.system.bar_v()\n");
  auto spmd = scope(ScopeKind::Spmd);
  std::const_pointer_cast<ScopeStmt>(spmd)->core_num = make_int(8);
  CHECK(print_stmt(spmd) == "with pl.spmd(8):\n    pl.system.bar_v()\n");
  auto rt = scope(ScopeKind::Runtime);
  CHECK(print_stmt(rt) == "with pl.scope():\n    pl.system.bar_v()\n");
  std::const_pointer_cast<ScopeStmt>(rt)->manual = true;
  CHECK(print_stmt(rt) == "with pl.manual_scope():\n    pl.system.bar_v()\n");
  auto h = scope(ScopeKind::Hierarchy);
  std::const_pointer_cast<ScopeStmt>(h)->level = Level::HOST;
  std::const_pointer_cast<ScopeStmt>(h)->role = Role::Orchestrator;
  CHECK(print_stmt(h) == "with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):\n    pl.system.bar_v()\n");
}

TEST_CASE("names: disambiguation, reserved words, dynamic dims", "[printer]") {
  // Three distinct Vars hinted x, x, x_1: the second 'x' skips 'x_1' (another Var's hint).
  auto x = var("x"), x2 = var("x"), x_1 = var("x_1");
  auto kw = var("if"), pl = var("pl"), self = var("self"), bad = var("3d.val"), empty = var("");
  auto m_local = var("M");
  auto m_dim = var("M");
  auto f = func("f", {x}, {},
                seq({assign(x2, bin(BinOp::Add, x, make_int(1))), assign(x_1, x2), assign(kw, x_1), assign(pl, kw),
                     assign(self, pl), assign(bad, self), assign(empty, bad), assign(m_local, m_dim)}));
  auto prog = make_program("Names", {f}, {m_dim});
  CHECK(print_program(*prog) ==
        "# pypto.program: Names\n"
        "import pypto.language as pl\n"
        "\n"
        "M = pl.dynamic(\"M\")\n"
        "\n"
        "@pl.program\n"
        "class Names:\n"
        "    @pl.function\n"
        "    def f(self, x: pl.Scalar[pl.INDEX]):\n"
        "        x_2: pl.Scalar[pl.INDEX] = x + 1\n"
        "        x_1: pl.Scalar[pl.INDEX] = x_2\n"
        "        if_: pl.Scalar[pl.INDEX] = x_1\n"
        "        pl_: pl.Scalar[pl.INDEX] = if_\n"
        "        self_: pl.Scalar[pl.INDEX] = pl_\n"
        "        v3d_val: pl.Scalar[pl.INDEX] = self_\n"
        "        v: pl.Scalar[pl.INDEX] = v3d_val\n"
        "        M_1: pl.Scalar[pl.INDEX] = M\n");
}

TEST_CASE("MemRefs inside a function: allocated bases by name, DDR bases as strings", "[printer]") {
  auto ddr = var("mem_ddr_0", ptr_type());
  auto vec = var("mem_vec_0", ptr_type());
  auto a_t = std::make_shared<TensorType>(DataType::FP32, ints({64, 128}), std::nullopt, memref(ddr, 0, 32768));
  auto a = var("a", a_t);
  auto t_t = std::make_shared<TileType>(DataType::FP32, ints({64, 128}), MemorySpace::Vec, std::nullopt,
                                        memref(vec, 0, 32768));
  auto t = var("t", t_t);
  auto alloc = make_call("tile.alloc", {}, {{"memory_space", MemorySpace::Vec}, {"size", int64_t(32768)}}, {});
  auto load = make_call("tile.load", {a, list(ints({0, 0})), list(ints({64, 128}))}, {}, {});
  auto f = func("k", {a}, {}, seq({assign(vec, alloc), assign(t, load)}), FunctionType::AIV);
  CHECK(print_function(*f) ==
        "@pl.function(type=pl.FunctionType.AIV)\n"
        "def k(self, a: pl.Tensor[[64, 128], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 32768)]):\n"
        "    mem_vec_0: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)\n"
        "    t: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = "
        "pl.tile.load(a, [0, 0], [64, 128])\n");
}

TEST_CASE("tuple-valued locals and tuple items", "[printer]") {
  auto tt = std::make_shared<TupleType>(std::vector<TypePtr>{tensor_t({8}), idx()});
  auto g = std::make_shared<Call>(nullptr, "g", std::vector<ExprPtr>{}, std::vector<std::pair<std::string, AttrValue>>{},
                                  tt, Span{});
  auto t = var("t", tt);
  auto y = var("y", tensor_t({8}));
  auto s = seq({assign(t, g), assign(y, std::make_shared<TupleGetItem>(t, 0, tensor_t({8}), Span{}))});
  CHECK(print_stmt(s) ==
        "t: pl.Tuple[pl.Tensor[[8], pl.FP32], pl.Scalar[pl.INDEX]] = self.g()\n"
        "y: pl.Tensor[[8], pl.FP32] = t[0]\n");
}

// Structural equality and hashing: independently built identical programs are equal with equal
// hashes; each kind of difference is reported with its path and message; Var mapping is a
// bijection (`x + x` != `y + z`); ignored fields (names, spans, comments) do not matter.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "ir/ir.h"
#include "ir/structural_equal.h"

using namespace pypto::ir;

namespace {

TypePtr idx() { return scalar_type(DataType::INDEX); }
std::vector<ExprPtr> ints(std::vector<int64_t> v) {
  std::vector<ExprPtr> out;
  for (int64_t x : v) out.push_back(make_int(x));
  return out;
}
ExprPtr list(std::vector<ExprPtr> es) {
  std::vector<TypePtr> ts;
  for (const auto& e : es) ts.push_back(e->type);
  return std::make_shared<MakeTuple>(std::move(es), std::make_shared<TupleType>(ts), Span{});
}
ExprPtr add(ExprPtr a, ExprPtr b) { return std::make_shared<Binary>(BinOp::Add, a, b, a->type, Span{}); }
StmtPtr assign(VarPtr v, ExprPtr e) { return std::make_shared<AssignStmt>(std::move(v), std::move(e), Span{}); }

FunctionPtr func(std::string name, std::vector<VarPtr> params, std::vector<ParamDirection> dirs,
                 std::vector<TypePtr> rets, StmtPtr body, FunctionType type) {
  auto f = std::make_shared<Function>();
  f->name = std::move(name);
  f->params = std::move(params);
  f->param_directions = std::move(dirs);
  f->return_types = std::move(rets);
  f->body = std::move(body);
  f->type = type;
  return f;
}

// One knob per kind of difference; the defaults build the reference program.
struct Knobs {
  std::string program_name = "P";
  std::string kernel_name = "kernel";
  std::string hint_suffix;  // changes every Var name hint
  Span span;                // attached to statements and expressions
  std::string comment;
  DataType x_dtype = DataType::FP32;
  bool x_dynamic = true;  // x: [M, 128] or [64, 128]
  int64_t x_cols = 128;
  ParamDirection out_dir = ParamDirection::Out;
  FunctionType kernel_type = FunctionType::InCore;
  MemorySpace t_space = MemorySpace::Vec;
  int64_t t_memref_size = 32768;
  bool u_own_base = false;  // u gets a fresh base instead of sharing t's
  MemorySpace load_target = MemorySpace::Vec;
  std::string scalar_op = "tile.adds";
  double scalar = 2.0;
  bool extra_stmt = false;
  int64_t trip = 4;
  ForKind loop_kind = ForKind::Sequential;
  int64_t mul = 16;
  ArgDirection acc_dir = ArgDirection::inout;
  std::optional<Level> kernel_level;       // stated on the kernel (none: the type's)
  std::optional<Role> kernel_role;
  std::vector<int64_t> load_valid;         // a valid_shape on the load (none: no 4th argument)
};

ProgramPtr build(const Knobs& k) {
  auto v = [&](const std::string& n, TypePtr t) { return make_var(n + k.hint_suffix, std::move(t), k.span); };
  auto m = v("M", idx());
  std::vector<ExprPtr> xshape = {k.x_dynamic ? ExprPtr(m) : make_int(64), make_int(k.x_cols)};
  auto ddr0 = v("mem_ddr_0", ptr_type());
  auto x_t = std::make_shared<TensorType>(k.x_dtype, xshape, std::nullopt,
                                          MemRef{ddr0, make_int(0, {}, DataType::INT64), 32768});
  auto t64 = std::make_shared<TensorType>(DataType::FP32, ints({64, 128}));

  // kernel
  auto x = v("x", x_t), r = v("r", idx()), out = v("out", t64);
  auto vec = v("mem_vec", ptr_type());
  auto vec_b = v("mem_vec_b", ptr_type());
  auto t_t = std::make_shared<TileType>(DataType::FP32, ints({64, 128}), k.t_space, std::nullopt,
                                        MemRef{vec, make_int(0, {}, DataType::INT64), k.t_memref_size});
  auto u_t = std::make_shared<TileType>(DataType::FP32, ints({64, 128}), k.t_space, std::nullopt,
                                        MemRef{k.u_own_base ? vec_b : vec, make_int(0, {}, DataType::INT64), 32768});
  auto t = v("t", t_t), u = v("u", u_t), out1 = v("out", t64);
  std::vector<StmtPtr> kb = {
      assign(vec, make_call("tile.alloc", {}, {{"memory_space", MemorySpace::Vec}, {"size", int64_t(32768)}}, k.span)),
      assign(t, make_call("tile.load",
                          k.load_valid.empty()
                              ? std::vector<ExprPtr>{x, list({r, make_int(0)}), list(ints({64, 128}))}
                              : std::vector<ExprPtr>{x, list({r, make_int(0)}), list(ints({64, 128})), list(ints(k.load_valid))},
                          {{"target_memory", k.load_target}}, k.span)),
      assign(u, make_call(k.scalar_op, {t, make_float(k.scalar, k.span)}, {}, k.span)),
      assign(out1, make_call("tile.store", {u, list({r, make_int(0)}), out}, {}, k.span)),
  };
  if (k.extra_stmt) kb.push_back(std::make_shared<EvalStmt>(make_call("system.bar_v", {}, {}, k.span), k.span));
  kb.push_back(std::make_shared<ReturnStmt>(std::vector<ExprPtr>{out1}, k.span));
  if (!k.comment.empty()) std::const_pointer_cast<Stmt>(kb[1])->leading_comments = {k.comment};
  auto kernel = func(k.kernel_name, {x, r, out}, {ParamDirection::In, ParamDirection::In, k.out_dir}, {t64},
                     make_body(kb), k.kernel_type);
  std::const_pointer_cast<Function>(kernel)->level = k.kernel_level;
  std::const_pointer_cast<Function>(kernel)->role = k.kernel_role;

  // main
  auto mx = v("x", x_t), mout = v("out", t64), i = v("i", idx());
  auto acc = std::make_shared<IterArg>("acc" + k.hint_suffix, t64, mout, k.span);
  auto mr = v("r", idx()), acc1 = v("acc", t64), acc2 = v("acc", t64);
  auto call = std::make_shared<Call>(nullptr, k.kernel_name, std::vector<ExprPtr>{mx, mr, acc},
                                     std::vector<std::pair<std::string, AttrValue>>{}, t64, k.span,
                                     std::vector<ArgDirection>{ArgDirection::input, ArgDirection::scalar, k.acc_dir});
  auto mul = std::make_shared<Binary>(BinOp::Mul, i, make_int(k.mul), idx(), k.span);
  auto loop = std::make_shared<ForStmt>(
      i, make_int(0), make_int(k.trip), make_int(1), std::vector<IterArgPtr>{acc},
      make_body({assign(mr, mul), assign(acc1, call), std::make_shared<YieldStmt>(std::vector<ExprPtr>{acc1}, k.span)}),
      std::vector<VarPtr>{acc2}, k.loop_kind, k.span);
  auto main = func("main", {mx, mout}, {ParamDirection::In, ParamDirection::Out}, {t64},
                   make_body({loop, std::make_shared<ReturnStmt>(std::vector<ExprPtr>{acc2}, k.span)}),
                   FunctionType::Orchestration);
  return make_program(k.program_name, {main, kernel}, {m});
}

// Compares the reference program with one built from `k`; returns the result.
EqualResult diff(const Knobs& k) { return structural_equal(*build(Knobs{}), *build(k)); }

}  // namespace

TEST_CASE("independently built identical programs are equal and hash equal", "[structural]") {
  auto a = build(Knobs{});
  auto b = build(Knobs{});
  auto r = structural_equal(*a, *b);
  CHECK(r.equal);
  CHECK(r.message.empty());
  CHECK(structural_hash(*a) == structural_hash(*b));
  CHECK(structural_equal(*a, *a).equal);
}

TEST_CASE("names, spans, comments and the program name are ignored", "[structural]") {
  auto file = std::make_shared<SourceFile>("x.py", "a\nb\n");
  Knobs k;
  k.program_name = "Other";
  k.hint_suffix = "_renamed";
  k.span = Span{file, 2, 1, 2, 2};
  k.comment = "a comment";
  auto a = build(Knobs{});
  auto b = build(k);
  CHECK(structural_equal(*a, *b).equal);
  CHECK(structural_hash(*a) == structural_hash(*b));
}

TEST_CASE("each kind of difference is reported with its path and message", "[structural]") {
  struct Case {
    const char* what;
    std::function<void(Knobs&)> change;
    std::string path;
    std::string message;
  };
  std::vector<Case> cases = {
      {"loop stop", [](Knobs& k) { k.trip = 8; }, "function 'main' / body / stmt[0] / stop",
       "ConstInt value mismatch (4 != 8)"},
      {"loop body constant", [](Knobs& k) { k.mul = 32; },
       "function 'main' / body / stmt[0] / body / stmt[0] / value / rhs", "ConstInt value mismatch (16 != 32)"},
      {"float argument", [](Knobs& k) { k.scalar = 3.0; }, "function 'kernel' / body / stmt[2] / value / args[1]",
       "ConstFloat value mismatch (2.0 != 3.0)"},
      {"op identity", [](Knobs& k) { k.scalar_op = "tile.muls"; }, "function 'kernel' / body / stmt[2] / value",
       "Call target mismatch (tile.adds != tile.muls)"},
      {"kwarg", [](Knobs& k) { k.load_target = MemorySpace::Mat; }, "function 'kernel' / body / stmt[1] / value",
       "kwarg 'target_memory' value mismatch (pl.Mem.Vec != pl.Mem.Mat)"},
      {"arg directions", [](Knobs& k) { k.acc_dir = ArgDirection::output; },
       "function 'main' / body / stmt[0] / body / stmt[1] / value",
       "arg_directions mismatch ([input, scalar, inout] != [input, scalar, output])"},
      {"MemRef size", [](Knobs& k) { k.t_memref_size = 16384; },
       "function 'kernel' / body / stmt[1] / var / type / memref", "MemRef size mismatch (32768 != 16384)"},
      {"MemRef base", [](Knobs& k) { k.u_own_base = true; },
       "function 'kernel' / body / stmt[2] / var / type / memref / base",
       "Var binding mismatch: 'mem_vec' is bound to 'mem_vec', got 'mem_vec_b'"},
      {"memory space", [](Knobs& k) { k.t_space = MemorySpace::Mat; }, "function 'kernel' / body / stmt[1] / var / type",
       "memory space mismatch (Vec != Mat)"},
      {"param dtype", [](Knobs& k) { k.x_dtype = DataType::FP16; }, "function 'kernel' / params[0] / type",
       "dtype mismatch (FP32 != FP16)"},
      {"shape dim", [](Knobs& k) { k.x_cols = 64; }, "function 'kernel' / params[0] / type / shape[1]",
       "ConstInt value mismatch (128 != 64)"},
      {"symbolic vs static dim", [](Knobs& k) { k.x_dynamic = false; }, "function 'kernel' / params[0] / type / shape[0]",
       "node kind mismatch (Var != ConstInt)"},
      {"param direction", [](Knobs& k) { k.out_dir = ParamDirection::InOut; }, "function 'kernel' / params[2]",
       "parameter direction mismatch (Out != InOut)"},
      {"function type", [](Knobs& k) { k.kernel_type = FunctionType::AIV; }, "function 'kernel'",
       "function type mismatch (InCore != AIV)"},
      {"function name", [](Knobs& k) { k.kernel_name = "kernel2"; }, "function 'kernel'",
       "function name mismatch ('kernel' != 'kernel2')"},
      {"statement count", [](Knobs& k) { k.extra_stmt = true; }, "function 'kernel' / body",
       "statement count mismatch (5 != 6)"},
      {"loop kind", [](Knobs& k) { k.loop_kind = ForKind::Parallel; }, "function 'main' / body / stmt[0]",
       "loop kind mismatch (range != parallel)"},
  };
  const uint64_t ref_hash = structural_hash(*build(Knobs{}));
  for (const auto& c : cases) {
    INFO(c.what);
    Knobs k;
    c.change(k);
    auto r = diff(k);
    CHECK_FALSE(r.equal);
    CHECK(r.path == c.path);
    CHECK(r.message == c.message);
    CHECK(structural_hash(*build(k)) != ref_hash);
  }
}

TEST_CASE("mismatch spans point at the differing nodes", "[structural]") {
  auto file = std::make_shared<SourceFile>("x.py", "a\nb\nc\n");
  auto a = make_int(3, Span{file, 1, 1, 1, 2});
  auto b = make_int(4, Span{file, 3, 5, 3, 6});
  auto r = structural_equal_detail(a, b);
  CHECK_FALSE(r.equal);
  CHECK(r.message == "ConstInt value mismatch (3 != 4)");
  CHECK(r.lhs_span.line == 1);
  CHECK(r.rhs_span.line == 3);
  CHECK(r.rhs_span.col == 5);
}

TEST_CASE("Var mapping is a bijection: x + x != y + z", "[structural]") {
  auto mk = [](const char* n1, const char* n2, bool same) {
    auto p = make_var(n1, idx()), q = make_var(n2, idx());
    auto s = make_var("s", idx());
    auto f = func("f", {p, q}, {ParamDirection::In, ParamDirection::In}, {},
                  assign(s, add(p, same ? ExprPtr(p) : ExprPtr(q))), FunctionType::Opaque);
    return f;
  };
  auto xx = mk("x", "w", true);   // s = x + x
  auto yz = mk("y", "z", false);  // s = y + z
  auto r = structural_equal(*xx, *yz);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "function 'f' / body / stmt[0] / value / rhs");
  CHECK(r.message == "Var mismatch: 'x' corresponds to 'y', got 'z'");
  CHECK(structural_hash(*xx) != structural_hash(*yz));
  // The other direction fails too (the map is checked both ways).
  auto r2 = structural_equal(*yz, *xx);
  CHECK_FALSE(r2.equal);
  CHECK(r2.message == "Var mismatch: 'z' corresponds to 'w', got 'x'");
  // Same shapes with different names are equal.
  CHECK(structural_equal(*mk("x", "w", true), *mk("a", "b", true)).equal);
  CHECK(structural_hash(*mk("x", "w", true)) == structural_hash(*mk("a", "b", true)));
  CHECK(structural_equal(*mk("x", "w", false), *mk("a", "b", false)).equal);

  // Two left binding sites may not map onto one right Var (non-SSA rebinding on the right).
  auto s1 = make_var("s", idx()), s2 = make_var("t", idx()), u = make_var("u", idx());
  auto left = func("g", {}, {}, {}, make_body({assign(s1, make_int(1)), assign(s2, make_int(1))}), FunctionType::Opaque);
  auto right = func("g", {}, {}, {}, make_body({assign(u, make_int(1)), assign(u, make_int(1))}), FunctionType::Opaque);
  auto r3 = structural_equal(*left, *right);
  CHECK_FALSE(r3.equal);
  CHECK(r3.path == "function 'g' / body / stmt[1] / var");
  CHECK(r3.message == "Var binding mismatch: 'u' is already bound to 's', got 't'");
  CHECK(structural_equal(*right, *right).equal);
}

TEST_CASE("free Vars compare by identity", "[structural]") {
  auto x = make_var("x", idx()), y = make_var("x", idx()), z = make_var("z", idx());
  CHECK(structural_equal(add(x, x), add(x, x)));
  CHECK_FALSE(structural_equal(add(x, x), add(y, z)));
  CHECK_FALSE(structural_equal(ExprPtr(x), ExprPtr(y)));  // same hint, different Vars
  auto r = structural_equal_detail(x, y);
  CHECK(r.message == "free Var mismatch ('x' != 'x')");
  CHECK(structural_hash(add(x, x)) == structural_hash(add(x, x)));
}

TEST_CASE("expression node kinds and operators", "[structural]") {
  auto x = make_var("x", idx());
  CHECK(structural_equal_detail(make_int(1), make_float(1.0)).message == "node kind mismatch (ConstInt != ConstFloat)");
  CHECK(structural_equal_detail(make_int(1), make_int(1, {}, DataType::INT64)).message ==
        "ConstInt dtype mismatch (INDEX != INT64)");
  CHECK(structural_equal_detail(make_bool(true), make_bool(false)).message == "ConstBool value mismatch (True != False)");
  auto sub = std::make_shared<Binary>(BinOp::Sub, x, make_int(1), idx(), Span{});
  CHECK(structural_equal_detail(add(x, make_int(1)), sub).message == "Binary op mismatch (Add != Sub)");
  auto cast16 = std::make_shared<Unary>(UnOp::Cast, x, scalar_type(DataType::FP16), Span{});
  auto cast32 = std::make_shared<Unary>(UnOp::Cast, x, scalar_type(DataType::FP32), Span{});
  CHECK(structural_equal_detail(cast16, cast32).message == "Cast target dtype mismatch (FP16 != FP32)");
  CHECK(structural_equal(cast16, std::make_shared<Unary>(UnOp::Cast, x, scalar_type(DataType::FP16), Span{})));
  auto nan1 = make_float(std::nan("1")), nan2 = make_float(std::nan("2"));
  CHECK(structural_equal(nan1, nan2));
  CHECK(structural_hash(nan1) == structural_hash(nan2));
  CHECK_FALSE(structural_equal(make_float(0.0), make_float(-0.0)));
  auto l2 = list({x, make_int(0)}), l3 = list({x, make_int(0), make_int(1)});
  auto r = structural_equal_detail(l2, l3);
  CHECK(r.message == "tuple size mismatch (2 != 3)");
  auto tt = std::make_shared<TupleType>(std::vector<TypePtr>{idx(), idx()});
  auto t = make_var("t", tt);
  auto g0 = std::make_shared<TupleGetItem>(t, 0, idx(), Span{});
  auto g1 = std::make_shared<TupleGetItem>(t, 1, idx(), Span{});
  CHECK(structural_equal_detail(g0, g1).message == "TupleGetItem index mismatch (0 != 1)");
}

TEST_CASE("statement grouping (nested SeqStmts) is not structure", "[structural]") {
  auto mk = [](bool nested) {
    auto a = make_var("a", idx()), b = make_var("b", idx()), c = make_var("c", idx());
    auto s1 = assign(a, make_int(1)), s2 = assign(b, a), s3 = assign(c, b);
    StmtPtr body = nested ? StmtPtr(std::make_shared<SeqStmts>(
                                std::vector<StmtPtr>{s1, std::make_shared<SeqStmts>(std::vector<StmtPtr>{s2, s3}, Span{})},
                                Span{}))
                          : make_body({s1, s2, s3});
    return func("f", {}, {}, {}, body, FunctionType::Opaque);
  };
  CHECK(structural_equal(*mk(true), *mk(false)).equal);
  CHECK(structural_hash(*mk(true)) == structural_hash(*mk(false)));
  CHECK(flatten_stmts(mk(true)->body).size() == 3);
}

TEST_CASE("an unstated level / role is the one the function type implies", "[structural]") {
  Knobs stated;
  stated.kernel_level = Level::CHIP_DIE;  // what InCore implies
  stated.kernel_role = Role::SubWorker;
  CHECK(diff(stated).equal);
  CHECK(structural_hash(*build(stated)) == structural_hash(*build(Knobs{})));
  Knobs host;
  host.kernel_level = Level::HOST;
  auto r = diff(host);
  CHECK(!r.equal);
  CHECK(r.message == "function level mismatch (CHIP_DIE != HOST)");
  Knobs orch;
  orch.kernel_role = Role::Orchestrator;
  CHECK(diff(orch).message == "function role mismatch (SubWorker != Orchestrator)");
}

TEST_CASE("a load without a valid_shape equals one whose valid_shape is its window", "[structural]") {
  Knobs whole;
  whole.load_valid = {64, 128};
  CHECK(diff(whole).equal);
  CHECK(structural_hash(*build(whole)) == structural_hash(*build(Knobs{})));
  Knobs part;
  part.load_valid = {32, 128};
  auto r = diff(part);
  CHECK(!r.equal);
  CHECK(r.path.find("args[3]") != std::string::npos);
}

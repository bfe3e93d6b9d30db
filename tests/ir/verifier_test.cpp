// Verifier tests: for every implemented property one program that satisfies it and one that
// violates it, asserting the rule name (Diagnostic::code) and the span of the offending node.
// Programs are built with the C++ IR API.
#include <catch2/catch.hpp>

#include "ir/ir.h"
#include "ir/verifier.h"

using namespace pypto::ir;

namespace {

using MS = MemorySpace;
using DT = DataType;

const SourceFilePtr kFile = std::make_shared<SourceFile>("prog.py", std::string(80, '\n'));
Span at(uint32_t line) { return Span{kFile, line, 5, line, 20}; }

std::vector<ExprPtr> dims(std::vector<int64_t> v) {
  std::vector<ExprPtr> e;
  for (auto x : v) e.push_back(make_int(x));
  return e;
}
ExprPtr idx(std::vector<int64_t> v) { return std::make_shared<MakeTuple>(dims(v), nullptr, Span{}); }
TypePtr tensor_t(std::optional<MemRef> m = {}, std::optional<TensorView> view = {}) {
  return std::make_shared<TensorType>(DT::FP32, dims({64, 128}), view, m);
}
TypePtr tile_t(std::optional<MS> sp = MS::Vec, std::optional<MemRef> m = {}, DT dt = DT::FP32) {
  return std::make_shared<TileType>(dt, dims({64, 128}), sp, std::nullopt, m);
}
VarPtr var(std::string n, TypePtr t) { return make_var(std::move(n), std::move(t)); }
StmtPtr assign(VarPtr v, ExprPtr e, uint32_t line) { return std::make_shared<AssignStmt>(v, e, at(line)); }
StmtPtr ret(std::vector<ExprPtr> v, uint32_t line) { return std::make_shared<ReturnStmt>(std::move(v), at(line)); }
StmtPtr yield(std::vector<ExprPtr> v, uint32_t line) { return std::make_shared<YieldStmt>(std::move(v), at(line)); }
ExprPtr op(std::string_view name, std::vector<ExprPtr> args, std::vector<std::pair<std::string, AttrValue>> kw = {},
           uint32_t line = 0) {
  return make_call(name, std::move(args), std::move(kw), line ? at(line) : Span{});
}

FunctionPtr fn(std::string name, FunctionType type, std::vector<VarPtr> params, std::vector<ParamDirection> dirs,
               std::vector<TypePtr> rets, std::vector<StmtPtr> body, bool auto_scope = true) {
  auto f = std::make_shared<Function>();
  f->name = std::move(name);
  f->type = type;
  f->params = std::move(params);
  f->param_directions = std::move(dirs);
  f->return_types = std::move(rets);
  f->body = make_body(std::move(body));
  f->auto_scope = auto_scope;
  f->span = at(1);
  return f;
}

// kernel(x, out) -> Tensor:  t = load(x) ; u = adds(t, 2.0) ; o = store(u, out) ; return o
FunctionPtr kernel(FunctionType type = FunctionType::InCore) {
  auto x = var("x", tensor_t()), out = var("out", tensor_t());
  auto t = var("t", tile_t()), u = var("u", tile_t()), o = var("o", tensor_t());
  return fn("kernel", type, {x, out}, {ParamDirection::In, ParamDirection::Out}, {tensor_t()},
            {assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 2),
             assign(u, op("tile.adds", {t, make_float(2.0)}), 3),
             assign(o, op("tile.store", {u, idx({0, 0}), out}), 4), ret({o}, 5)});
}

// main(x, out): for i, (acc,) in range(4, init=(out,)): a1 = self.kernel(x, acc); yield a1 ; return rv
FunctionPtr orchestration(std::vector<ArgDirection> dirs = {}, bool auto_scope = false) {
  auto x = var("x", tensor_t()), out = var("out", tensor_t());
  auto i = var("i", scalar_type(DT::INDEX));
  auto acc = std::make_shared<IterArg>("acc", tensor_t(), out, Span{});
  auto a1 = var("a1", tensor_t()), rv = var("rv", tensor_t());
  auto call = std::make_shared<Call>(nullptr, "kernel", std::vector<ExprPtr>{x, acc},
                                     std::vector<std::pair<std::string, AttrValue>>{}, tensor_t(), at(11), dirs);
  auto loop = std::make_shared<ForStmt>(i, make_int(0), make_int(4), make_int(1), std::vector<IterArgPtr>{acc},
                                        make_body({assign(a1, call, 11), yield({a1}, 12)}),
                                        std::vector<VarPtr>{rv}, ForKind::Sequential, at(10));
  return fn("main", FunctionType::Orchestration, {x, out}, {ParamDirection::In, ParamDirection::Out}, {tensor_t()},
            {loop, ret({rv}, 13)}, auto_scope);
}

ProgramPtr program(std::vector<FunctionPtr> fs) { return make_program("P", std::move(fs)); }

std::vector<Diagnostic> run(const ProgramPtr& p, PropertySet props, VerifyOptions opts = {}) {
  DiagnosticSink sink;
  bool ok = verify(*p, props, sink, opts);
  CHECK(ok == !sink.has_errors());
  return sink.take();
}

// Exactly one finding with this rule at this line.
void expect_one(const std::vector<Diagnostic>& ds, std::string_view rule, uint32_t line,
                std::string_view text = {}) {
  INFO("diagnostics: " << ds.size() << (ds.empty() ? "" : " first: " + ds[0].code + " " + ds[0].message));
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].code == rule);
  CHECK(ds[0].span.line == line);
  CHECK(ds[0].span.file == kFile);
  if (!text.empty()) CHECK_THAT(ds[0].message, Catch::Contains(std::string(text)));
}

}  // namespace

TEST_CASE("a well-formed program passes every front-end property", "[verifier]") {
  auto p = program({kernel(), orchestration()});
  auto props = structural_properties() | PropertySet{Property::SSAForm, Property::NoNestedCall,
                                                      Property::TileMemoryInferred, Property::RuntimeScopesMaterialized};
  auto ds = run(p, props);
  INFO((ds.empty() ? "" : ds[0].code + ": " + ds[0].message));
  CHECK(ds.empty());
  CHECK(structural_properties() ==
        PropertySet{Property::TypeChecked, Property::UseAfterDef, Property::NoRedundantBlocks});
  CHECK(has_real_verifier(Property::SSAForm));
  CHECK(has_real_verifier(Property::ReturnParamsExplicit));
  CHECK_FALSE(has_real_verifier(Property::PipeSyncInserted));
}

TEST_CASE("SSAForm", "[verifier][ssa]") {
  SECTION("double assignment") {
    auto x = var("x", tensor_t()), out = var("out", tensor_t());
    auto t = var("t", tile_t());
    auto f = fn("k", FunctionType::InCore, {x, out}, {ParamDirection::In, ParamDirection::Out}, {},
                {assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 2),
                 assign(t, op("tile.adds", {t, make_float(1.0)}), 3)});
    expect_one(run(program({f}), {Property::SSAForm}), "SSAForm", 3, "assigned more than once");
  }
  SECTION("use outside the defining scope") {
    auto n = var("n", scalar_type(DT::INDEX)), i = var("i", scalar_type(DT::INDEX));
    auto y = var("y", scalar_type(DT::INDEX)), z = var("z", scalar_type(DT::INDEX));
    auto loop = std::make_shared<ForStmt>(i, make_int(0), n, make_int(1), std::vector<IterArgPtr>{},
                                          assign(y, i, 3), std::vector<VarPtr>{}, ForKind::Sequential, at(2));
    auto use = std::make_shared<Binary>(BinOp::Add, y, make_int(1), scalar_type(DT::INDEX), at(4));
    auto f = fn("k", FunctionType::Orchestration, {n}, {ParamDirection::In}, {}, {loop, assign(z, use, 4)});
    expect_one(run(program({f}), {Property::SSAForm}), "SSAForm", 4, "outside its defining scope");
    // the same program is fine for UseAfterDef (front-end "leak" form)
    CHECK(run(program({f}), {Property::UseAfterDef}).empty());
  }
  SECTION("loop carry without yield") {
    auto out = var("out", tensor_t()), i = var("i", scalar_type(DT::INDEX));
    auto acc = std::make_shared<IterArg>("acc", tensor_t(), out, Span{});
    auto rv = var("rv", tensor_t()), z = var("z", tensor_t());
    auto loop = std::make_shared<ForStmt>(i, make_int(0), make_int(4), make_int(1), std::vector<IterArgPtr>{acc},
                                          assign(z, acc, 3), std::vector<VarPtr>{rv}, ForKind::Sequential, at(2));
    auto f = fn("k", FunctionType::Orchestration, {out}, {ParamDirection::InOut}, {}, {loop});
    expect_one(run(program({f}), {Property::SSAForm}), "SSAForm", 3, "must end with a yield of 1 values");
  }
  SECTION("iter_args / return_vars count mismatch") {
    auto out = var("out", tensor_t()), i = var("i", scalar_type(DT::INDEX));
    auto acc = std::make_shared<IterArg>("acc", tensor_t(), out, Span{});
    auto loop = std::make_shared<ForStmt>(i, make_int(0), make_int(4), make_int(1), std::vector<IterArgPtr>{acc},
                                          yield({acc}, 3), std::vector<VarPtr>{}, ForKind::Sequential, at(2));
    auto f = fn("k", FunctionType::Orchestration, {out}, {ParamDirection::InOut}, {}, {loop});
    expect_one(run(program({f}), {Property::SSAForm}), "SSAForm", 2, "1 iter_args but 0 return_vars");
  }
  SECTION("if with return_vars needs else, misplaced yield") {
    auto c = var("c", scalar_type(DT::BOOL)), n = var("n", scalar_type(DT::INDEX));
    auto r = var("r", scalar_type(DT::INDEX));
    auto no_else = std::make_shared<IfStmt>(c, yield({n}, 3), nullptr, std::vector<VarPtr>{r}, at(2));
    auto f = fn("k", FunctionType::Orchestration, {c, n}, {ParamDirection::In, ParamDirection::In}, {}, {no_else});
    expect_one(run(program({f}), {Property::SSAForm}), "SSAForm", 2, "no else branch");

    auto f2 = fn("k", FunctionType::Orchestration, {n}, {ParamDirection::In}, {}, {yield({n}, 6), ret({}, 7)});
    expect_one(run(program({f2}), {Property::SSAForm}), "SSAForm", 6, "misplaced yield");

    auto ok_if = std::make_shared<IfStmt>(c, yield({n}, 3), yield({make_int(0)}, 5), std::vector<VarPtr>{r}, at(2));
    auto f3 = fn("k", FunctionType::Orchestration, {c, n}, {ParamDirection::In, ParamDirection::In}, {}, {ok_if, ret({}, 6)});
    CHECK(run(program({f3}), {Property::SSAForm}).empty());
  }
  SECTION("a loop body's yield may end a runtime scope that ends the body, no other scope") {
    auto out = var("out", tensor_t()), i = var("i", scalar_type(DT::INDEX));
    auto acc = std::make_shared<IterArg>("acc", tensor_t(), out, Span{});
    auto rv = var("rv", tensor_t());
    for (const auto kind : {ScopeKind::Runtime, ScopeKind::InCore}) {
      auto scope = std::make_shared<ScopeStmt>(kind, yield({acc}, 4), at(3));
      auto loop = std::make_shared<ForStmt>(i, make_int(0), make_int(4), make_int(1), std::vector<IterArgPtr>{acc},
                                            scope, std::vector<VarPtr>{rv}, ForKind::Sequential, at(2));
      auto f = fn("k", FunctionType::Orchestration, {out}, {ParamDirection::InOut}, {}, {loop, ret({rv}, 5)});
      if (kind == ScopeKind::Runtime) CHECK(run(program({f}), {Property::SSAForm}).empty());
      else expect_one(run(program({f}), {Property::SSAForm}), "SSAForm", 4, "misplaced yield");
    }
  }
}

TEST_CASE("UseAfterDef", "[verifier]") {
  auto x = var("x", tensor_t()), out = var("out", tensor_t());
  auto t = var("t", tile_t()), u = var("u", tile_t());
  // u is used (line 2) before it is assigned (line 3)
  auto f = fn("k", FunctionType::InCore, {x, out}, {ParamDirection::In, ParamDirection::Out}, {},
              {assign(t, op("tile.adds", {u, make_float(1.0)}, {}, 2), 2),
               assign(u, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 3)});
  expect_one(run(program({f}), {Property::UseAfterDef}), "UseAfterDef", 2, "'u' used before definition");
  CHECK(run(program({kernel()}), {Property::UseAfterDef}).empty());

  SECTION("MemRef bases allocated in the function must be defined first") {
    auto base = var("mem_vec_0", ptr_type());
    auto tt = var("t", tile_t(MS::Vec, MemRef{base, make_int(0, {}, DT::INT64), 32768}));
    auto body_bad = std::vector<StmtPtr>{
        assign(tt, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 2),
        assign(base, op("tile.alloc", {}, {{"memory_space", MS::Vec}, {"size", int64_t(32768)}}), 3)};
    auto g = fn("k", FunctionType::InCore, {x, out}, {ParamDirection::In, ParamDirection::Out}, {}, body_bad);
    expect_one(run(program({g}), {Property::UseAfterDef}), "UseAfterDef", 2, "'mem_vec_0'");
  }
}

TEST_CASE("TypeChecked", "[verifier][types]") {
  CHECK(run(program({kernel(), orchestration()}), {Property::TypeChecked}).empty());
  auto x = var("x", tensor_t()), out = var("out", tensor_t());
  SECTION("binding type differs from the value type") {
    auto t = var("t", tile_t(MS::Vec, {}, DT::FP16));
    auto f = fn("k", FunctionType::InCore, {x, out}, {ParamDirection::In, ParamDirection::Out}, {},
                {assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 4)});
    expect_one(run(program({f}), {Property::TypeChecked}), "TypeChecked", 4, "'t' is declared");
  }
  // Found by fuzzing: shapes with huge or negative extents overflowed 64-bit sizes and strides in
  // later passes (undefined behaviour). Every bound value's static shape is bounded.
  SECTION("static shapes stay within 2^32 - 1 per extent and 2^48 bytes") {
    for (const auto& [shape, why] : std::vector<std::pair<std::vector<int64_t>, std::string>>{
             {{-16, 64}, "extent 0 is negative (-16)"},
             {{4294967296, 1}, "extent 0 (4294967296) is larger than 4294967295"},
             {{2147483647, 2147483647}, "it holds more than 2^48 bytes"}}) {
      auto big = var("big", std::make_shared<TensorType>(DT::FP32, dims(shape)));
      auto f = fn("k", FunctionType::Orchestration, {big}, {ParamDirection::In}, {}, {ret({}, 3)});
      expect_one(run(program({f}), {Property::TypeChecked}), "TypeChecked", 1, "'big' in function 'k' has the type");
      expect_one(run(program({f}), {Property::TypeChecked}), "TypeChecked", 1, why);
    }
    auto ok = var("ok", std::make_shared<TensorType>(DT::INT8, dims({4294967295, 65536})));
    CHECK(run(program({fn("k", FunctionType::Orchestration, {ok}, {ParamDirection::In}, {}, {ret({}, 3)})}),
              {Property::TypeChecked}).empty());
  }
  SECTION("if condition must be BOOL") {
    auto n = var("n", scalar_type(DT::INDEX));
    auto iff = std::make_shared<IfStmt>(n, ret({}, 3), nullptr, std::vector<VarPtr>{}, at(2));
    auto f = fn("k", FunctionType::Orchestration, {n}, {ParamDirection::In}, {}, {iff});
    expect_one(run(program({f}), {Property::TypeChecked}), "TypeChecked", 2, "if condition must be a BOOL scalar");
  }
  SECTION("loop bounds must be INDEX scalars") {
    auto i = var("i", scalar_type(DT::INDEX));
    auto loop = std::make_shared<ForStmt>(i, make_int(0), make_float(4.0, at(7)), make_int(1), std::vector<IterArgPtr>{},
                                          ret({}, 8), std::vector<VarPtr>{}, ForKind::Sequential, at(6));
    auto f = fn("k", FunctionType::Orchestration, {}, {}, {}, {loop});
    expect_one(run(program({f}), {Property::TypeChecked}), "TypeChecked", 7, "loop bound");
  }
  SECTION("attributes the kernel emitter spells only in range: event id, cmp_type, cast mode") {
    // Calls built past make_call (as a faulty pass could): the verifier re-runs the type rule.
    auto with_kw = [](const ExprPtr& good, const std::string& k, AttrValue v, uint32_t line) {
      const auto& c = static_cast<const Call&>(*good);
      auto kw = c.kwargs;
      for (auto& [n, x] : kw)
        if (n == k) x = v;
      return std::make_shared<Call>(c.op, c.callee, c.args, kw, c.type, at(line));
    };
    auto t = var("t", tile_t());
    auto load = assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 2);
    auto sync = op("system.sync_src", {}, {{"set_pipe", EnumLit{"PipeType", "MTE2"}}, {"wait_pipe", EnumLit{"PipeType", "V"}},
                                            {"event_id", int64_t(0)}});
    auto cmp = op("tile.cmp", {t, t}, {{"cmp_type", int64_t(1)}});
    auto cast = op("tile.cast", {t}, {{"target_type", DT::FP16}, {"mode", std::string("floor")}});
    auto m = var("m", cmp->type), cv = var("cv", cast->type);
    auto kernel_with = [&](StmtPtr s) {
      return program({fn("k", FunctionType::AIV, {x, out}, {ParamDirection::In, ParamDirection::Out}, {}, {load, s})});
    };
    CHECK(run(kernel_with(std::make_shared<EvalStmt>(sync, at(3))), {Property::TypeChecked}).empty());
    expect_one(run(kernel_with(std::make_shared<EvalStmt>(with_kw(sync, "event_id", int64_t(8), 3), at(3))),
                   {Property::TypeChecked}),
               "TypeChecked", 3, "event_id must be an integer in 0..7");
    CHECK(run(kernel_with(assign(m, cmp, 4)), {Property::TypeChecked}).empty());
    expect_one(run(kernel_with(assign(m, with_kw(cmp, "cmp_type", int64_t(6), 4), 4)), {Property::TypeChecked}),
               "TypeChecked", 4, "cmp_type 6 is not a comparison");
    CHECK(run(kernel_with(assign(cv, cast, 5)), {Property::TypeChecked}).empty());
    expect_one(run(kernel_with(assign(cv, with_kw(cast, "mode", std::string("sideways"), 5), 5)), {Property::TypeChecked}),
               "TypeChecked", 5, "unknown rounding mode");
  }
  SECTION("call to a program function with the wrong arity") {
    auto bad = std::make_shared<Call>(nullptr, "kernel", std::vector<ExprPtr>{x},
                                      std::vector<std::pair<std::string, AttrValue>>{}, tensor_t(), at(9));
    auto r = var("r", tensor_t());
    auto m = fn("main", FunctionType::Orchestration, {x}, {ParamDirection::In}, {}, {assign(r, bad, 9)});
    expect_one(run(program({kernel(), m}), {Property::TypeChecked}), "TypeChecked", 9, "takes 2 arguments but 1 were given");
  }
  SECTION("yield type differs from the iter_arg") {
    auto i = var("i", scalar_type(DT::INDEX));
    auto acc = std::make_shared<IterArg>("acc", tensor_t(), out, Span{});
    auto rv = var("rv", tensor_t());
    auto loop = std::make_shared<ForStmt>(i, make_int(0), make_int(4), make_int(1), std::vector<IterArgPtr>{acc},
                                          yield({i}, 3), std::vector<VarPtr>{rv}, ForKind::Sequential, at(2));
    auto f = fn("k", FunctionType::Orchestration, {out}, {ParamDirection::InOut}, {}, {loop});
    expect_one(run(program({f}), {Property::TypeChecked}), "TypeChecked", 3, "yielded to iter_args");
  }
  SECTION("op call whose stored type disagrees with deduction") {
    auto t = var("t", tile_t());
    auto load = std::make_shared<Call>(OpRegistry::instance().find("tile.load"), "",
                                       std::vector<ExprPtr>{x, idx({0, 0}), idx({32, 128})},
                                       std::vector<std::pair<std::string, AttrValue>>{{"target_memory", MS::Vec}, {"clamp", false}},
                                       tile_t(), at(5));
    auto f = fn("k", FunctionType::InCore, {x, out}, {ParamDirection::In, ParamDirection::Out}, {}, {assign(t, load, 5)});
    auto ds = run(program({f}), {Property::TypeChecked});
    REQUIRE(ds.size() >= 1);
    CHECK(ds[0].code == "TypeChecked");
    CHECK(ds[0].span.line == 5);
    CHECK_THAT(ds[0].message, Catch::Contains("result of pl.tile.load"));
  }
}

TEST_CASE("OpPlacement (reported under TypeChecked)", "[verifier][placement]") {
  auto x = var("x", tensor_t()), out = var("out", tensor_t());
  auto t = var("t", tile_t());
  auto load = [&](uint32_t line) { return assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}, {}, line), line); };
  auto orch_bad = fn("main", FunctionType::Orchestration, {x}, {ParamDirection::In}, {}, {load(3)});
  expect_one(run(program({orch_bad}), {Property::TypeChecked}), "OpPlacement", 3, "tile op 'pl.tile.load' on the control plane");

  auto scope = std::make_shared<ScopeStmt>(ScopeKind::InCore, load(3), at(2));
  auto orch_ok = fn("main", FunctionType::Orchestration, {x}, {ParamDirection::In}, {}, {scope});
  CHECK(run(program({orch_ok}), {Property::TypeChecked}).empty());

  auto c = var("c", tensor_t());
  auto k = fn("k", FunctionType::InCore, {}, {}, {},
              {assign(c, op("tensor.create", {idx({64, 128})}, {{"dtype", DT::FP32}}, 4), 4)});
  expect_one(run(program({k}), {Property::TypeChecked}), "OpPlacement", 4, "kernels cannot allocate tensors");
}

TEST_CASE("NoRedundantBlocks", "[verifier]") {
  CHECK(run(program({kernel()}), {Property::NoRedundantBlocks}).empty());
  auto n = var("n", scalar_type(DT::INDEX)), i = var("i", scalar_type(DT::INDEX));
  auto single = std::make_shared<SeqStmts>(std::vector<StmtPtr>{ret({}, 4)}, at(3));
  auto loop = std::make_shared<ForStmt>(i, make_int(0), n, make_int(1), std::vector<IterArgPtr>{}, single,
                                        std::vector<VarPtr>{}, ForKind::Sequential, at(2));
  auto f = fn("k", FunctionType::Orchestration, {n}, {ParamDirection::In}, {}, {loop});
  expect_one(run(program({f}), {Property::NoRedundantBlocks}), "NoRedundantBlocks", 3, "single statement");
}

TEST_CASE("NoNestedCall", "[verifier]") {
  CHECK(run(program({kernel(), orchestration()}), {Property::NoNestedCall}).empty());
  auto x = var("x", tensor_t()), u = var("u", tile_t());
  auto nested = op("tile.adds", {op("tile.load", {x, idx({0, 0}), idx({64, 128})}, {}, 6), make_float(1.0)}, {}, 6);
  auto f = fn("k", FunctionType::InCore, {x}, {ParamDirection::In}, {}, {assign(u, nested, 6)});
  expect_one(run(program({f}), {Property::NoNestedCall}), "NoNestedCall", 6, "call to pl.tile.load nested");
}

TEST_CASE("memory properties", "[verifier][memory]") {
  auto base = var("mem_vec_0", ptr_type());
  auto ddr0 = var("mem_ddr_0", ptr_type()), ddr1 = var("mem_ddr_1", ptr_type());
  auto mk = [&](ExprPtr offset, std::optional<MS> space = MS::Vec, bool with_memref = true) {
    auto x = var("x", tensor_t(MemRef{ddr0, make_int(0, {}, DT::INT64), 32768}));
    auto out = var("out", tensor_t(MemRef{ddr1, make_int(0, {}, DT::INT64), 32768}));
    auto t = var("t", tile_t(space, with_memref ? std::optional<MemRef>(MemRef{base, offset, 32768}) : std::nullopt));
    auto o = var("o", out->type);
    return fn("k", FunctionType::AIV, {x, out}, {ParamDirection::In, ParamDirection::Out}, {out->type},
              {assign(base, op("tile.alloc", {}, {{"memory_space", MS::Vec}, {"size", int64_t(32768)}}), 2),
               assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 3),
               assign(o, op("tile.store", {t, idx({0, 0}), out}), 4), ret({o}, 5)});
  };
  const PropertySet mem{Property::HasMemRefs, Property::AllocatedMemoryAddr, Property::TileMemoryInferred};
  auto good = program({mk(make_int(0, {}, DT::INT64))});
  CHECK(run(good, mem | structural_properties()).empty());

  SECTION("HasMemRefs") {
    expect_one(run(program({mk(make_int(0), MS::Vec, false)}), {Property::HasMemRefs}), "HasMemRefs", 3, "'t'");
  }
  SECTION("TileMemoryInferred") {
    expect_one(run(program({mk(make_int(0), std::nullopt, false)}), {Property::TileMemoryInferred}),
               "TileMemoryInferred", 3, "no memory space");
  }
  SECTION("AllocatedMemoryAddr: capacity (910B Vec = 184 KiB, 950 Vec = 240 KiB)") {
    auto over = program({mk(make_int(160 * 1024, {}, DT::INT64))});
    expect_one(run(over, {Property::AllocatedMemoryAddr}), "AllocatedMemoryAddr", 3, "exceeds the Vec capacity");
    CHECK(run(over, {Property::AllocatedMemoryAddr}, VerifyOptions{Soc::Ascend950}).empty());
  }
  SECTION("AllocatedMemoryAddr: a copy is its source's buffer") {
    auto copy = [&](int64_t at_offset) {
      auto x = var("x", tensor_t(MemRef{ddr0, make_int(0, {}, DT::INT64), 32768}));
      auto t = var("t", tile_t(MS::Vec, MemRef{base, make_int(0, {}, DT::INT64), 32768}));
      auto c = var("c", tile_t(MS::Vec, MemRef{base, make_int(at_offset, {}, DT::INT64), 32768}));
      return program({fn("k", FunctionType::AIV, {x}, {ParamDirection::In}, {},
                         {assign(base, op("tile.alloc", {}, {{"memory_space", MS::Vec}, {"size", int64_t(65536)}}), 2),
                          assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 3), assign(c, t, 4)})});
    };
    CHECK(run(copy(0), {Property::AllocatedMemoryAddr}).empty());
    expect_one(run(copy(32768), {Property::AllocatedMemoryAddr}), "AllocatedMemoryAddr", 4,
               "is at Vec 32768 but must be one buffer with the value it copies 't' at Vec 0");
  }
  SECTION("AllocatedMemoryAddr: constant, aligned addresses") {
    auto sym = var("off", scalar_type(DT::INT64));
    expect_one(run(program({mk(sym)}), {Property::AllocatedMemoryAddr}), "AllocatedMemoryAddr", 3, "not a constant");
    expect_one(run(program({mk(make_int(48, {}, DT::INT64))}), {Property::AllocatedMemoryAddr}),
               "AllocatedMemoryAddr", 3, "not 32-byte aligned");
  }
}

TEST_CASE("call directions, runtime scopes and stage properties", "[verifier]") {
  using AD = ArgDirection;
  SECTION("CallDirectionsResolved") {
    CHECK(run(program({kernel(), orchestration({AD::input, AD::inout})}), {Property::CallDirectionsResolved}).empty());
    expect_one(run(program({kernel(), orchestration()}), {Property::CallDirectionsResolved}),
               "CallDirectionsResolved", 11, "0 argument directions for 2 arguments");
  }
  SECTION("RuntimeScopesMaterialized") {
    CHECK(run(program({kernel(), orchestration({}, false)}), {Property::RuntimeScopesMaterialized}).empty());
    expect_one(run(program({kernel(), orchestration({}, true)}), {Property::RuntimeScopesMaterialized}),
               "RuntimeScopesMaterialized", 1, "auto_scope=True");
  }
  SECTION("TensorAllocsPlanned") {
    auto create = [](std::optional<int64_t> batch, uint32_t line) {
      std::vector<std::pair<std::string, AttrValue>> kw = {{"dtype", DT::FP32}};
      if (batch) kw.emplace_back("alloc_batch", *batch);
      return op("tensor.create", {idx({64, 128})}, kw, line);
    };
    auto main = [](std::vector<StmtPtr> body) {
      return fn("main", FunctionType::Orchestration, {}, {}, {}, std::move(body), false);
    };
    auto a = var("a", tensor_t()), b = var("b", tensor_t());
    CHECK(run(program({main({assign(a, create(0, 2), 2), assign(b, create(0, 3), 3)})}),
              {Property::TensorAllocsPlanned}).empty());
    expect_one(run(program({main({assign(a, create(0, 2), 2), assign(b, create({}, 3), 3)})}),
                   {Property::TensorAllocsPlanned}),
               "TensorAllocsPlanned", 3, "has no alloc_batch");
    expect_one(run(program({main({std::make_shared<EvalStmt>(create(0, 4), at(4))})}), {Property::TensorAllocsPlanned}),
               "TensorAllocsPlanned", 4, "not the value of an assignment");
  }
  SECTION("MixedKernelExpanded") {
    CHECK(run(program({kernel(FunctionType::AIV)}), {Property::MixedKernelExpanded}).empty());
    expect_one(run(program({kernel(FunctionType::InCore)}), {Property::MixedKernelExpanded}), "MixedKernelExpanded", 1);
  }
  SECTION("SplitIncoreOrch and TileOpsOnly") {
    auto x = var("x", tensor_t()), y = var("y", tensor_t());
    auto body = assign(y, op("tensor.exp", {x}, {}, 4), 4);
    auto orch = fn("main", FunctionType::Orchestration, {x}, {ParamDirection::In}, {},
                   {std::make_shared<ScopeStmt>(ScopeKind::InCore, body, at(3))});
    expect_one(run(program({orch}), {Property::SplitIncoreOrch}), "SplitIncoreOrch", 3);
    auto k = fn("k", FunctionType::InCore, {x}, {ParamDirection::In}, {}, {body});
    expect_one(run(program({k}), {Property::TileOpsOnly}), "TileOpsOnly", 4, "tensor op 'pl.tensor.exp'");
    CHECK(run(program({kernel()}), {Property::TileOpsOnly}).empty());
  }
  SECTION("TensorStridesMaterialized") {
    TensorView v;
    v.stride = dims({128, 1});
    auto x = var("x", tensor_t({}, v));
    CHECK(run(program({fn("k", FunctionType::AIV, {x}, {ParamDirection::In}, {}, {ret({}, 2)})}),
              {Property::TensorStridesMaterialized}).empty());
    // No view: packed row-major, nothing to materialize. A view without strides is reported.
    auto bare = var("x", tensor_t());
    CHECK(run(program({fn("k", FunctionType::AIV, {bare}, {ParamDirection::In}, {}, {ret({}, 2)})}),
              {Property::TensorStridesMaterialized}).empty());
    TensorView dn;
    dn.layout = TensorLayout::DN;
    auto unstrided = var("x", tensor_t({}, dn));
    expect_one(run(program({fn("k", FunctionType::AIV, {unstrided}, {ParamDirection::In}, {}, {ret({}, 2)})}),
                   {Property::TensorStridesMaterialized}),
               "TensorStridesMaterialized", 1);
  }
}

TEST_CASE("ReturnParamsExplicit", "[verifier]") {
  CHECK(run(program({kernel(FunctionType::AIV)}), {Property::ReturnParamsExplicit}).empty());
  // two outputs returned in the wrong order
  auto x = var("x", tensor_t()), o1 = var("o1", tensor_t()), o2 = var("o2", tensor_t());
  auto t = var("t", tile_t()), s1 = var("s1", tensor_t()), s2 = var("s2", tensor_t());
  auto body = [&](bool swapped) {
    return std::vector<StmtPtr>{assign(t, op("tile.load", {x, idx({0, 0}), idx({64, 128})}), 2),
                                assign(s1, op("tile.store", {t, idx({0, 0}), o1}), 3),
                                assign(s2, op("tile.store", {t, idx({0, 0}), o2}), 4),
                                ret(swapped ? std::vector<ExprPtr>{s2, s1} : std::vector<ExprPtr>{s1, s2}, 5)};
  };
  auto mk = [&](bool swapped) {
    return fn("k", FunctionType::AIV, {x, o1, o2}, {ParamDirection::In, ParamDirection::Out, ParamDirection::Out},
              {tensor_t(), tensor_t()}, body(swapped));
  };
  CHECK(run(program({mk(false)}), {Property::ReturnParamsExplicit}).empty());
  auto ds = run(program({mk(true)}), {Property::ReturnParamsExplicit});
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].code == "ReturnParamsExplicit");
  CHECK(ds[0].span.line == 5);
  CHECK_THAT(ds[0].message, Catch::Contains("return value 1 of kernel 'k' is not the buffer of Out/InOut parameter 'o1'"));
}

TEST_CASE("malformed IR is reported, never crashes", "[verifier]") {
  auto n = var("n", scalar_type(DT::INDEX));
  auto loop = std::make_shared<ForStmt>(nullptr, make_int(0), n, make_int(1), std::vector<IterArgPtr>{nullptr},
                                        ret({}, 3), std::vector<VarPtr>{nullptr}, ForKind::Sequential, at(2));
  auto f = fn("k", FunctionType::Orchestration, {n}, {ParamDirection::In}, {},
              {std::make_shared<AssignStmt>(nullptr, n, at(1)), loop});
  PropertySet all;
  for (int i = 0; i < int(Property::kCount); ++i) all.insert(Property(i));
  std::vector<Diagnostic> ds;
  REQUIRE_NOTHROW(ds = run(program({f}), all));
  bool saw = false;
  for (const auto& d : ds) saw |= d.code == "TypeChecked" && d.message.find("without a target") != std::string::npos;
  CHECK(saw);
}

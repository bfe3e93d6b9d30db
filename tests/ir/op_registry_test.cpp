// Op registry tests: the required ops exist with their kwargs and facets; type deduction
// computes shapes, dtypes and memory spaces; misuse raises E302 naming the op and operand.
#include <catch2/catch.hpp>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"

using namespace pypto::ir;

namespace {

ExprPtr tile_var(std::string n, std::vector<int64_t> shape, DataType dt = DataType::FP32,
                 std::optional<MemorySpace> sp = MemorySpace::Vec) {
  std::vector<ExprPtr> s;
  for (auto d : shape) s.push_back(make_int(d));
  return make_var(std::move(n), std::make_shared<TileType>(dt, s, sp));
}
ExprPtr tensor_var(std::string n, std::vector<int64_t> shape, DataType dt = DataType::FP32) {
  std::vector<ExprPtr> s;
  for (auto d : shape) s.push_back(make_int(d));
  return make_var(std::move(n), std::make_shared<TensorType>(dt, s));
}
ExprPtr idx(std::vector<int64_t> v) {
  std::vector<ExprPtr> e;
  for (auto x : v) e.push_back(make_int(x));
  return std::make_shared<MakeTuple>(e, nullptr, Span{});
}
std::vector<int64_t> shape_of(const TypePtr& t) {
  const auto* s = as_shaped(t);
  REQUIRE(s);
  auto st = static_shape(s->shape);
  REQUIRE(st);
  return *st;
}
using KW = std::vector<std::pair<std::string, AttrValue>>;

// Runs make_call and returns the E302 message it throws ("" when it does not throw).
std::string error_of(std::string_view op, std::vector<ExprPtr> args, KW kw = {}) {
  try {
    make_call(op, std::move(args), std::move(kw), Span{});
  } catch (const CompileError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].code == "E302");
    return e.diagnostics()[0].message;
  }
  return "";
}

}  // namespace

TEST_CASE("every required op is registered", "[ops]") {
  auto& reg = OpRegistry::instance();
  std::vector<std::string> names;
  for (const char* n : {"add", "sub", "mul", "div", "maximum", "minimum", "adds", "subs", "muls",
                        "divs", "maximums", "minimums", "exp", "log", "sqrt", "rsqrt", "recip",
                        "neg", "abs", "relu", "cast", "expands", "row_sum", "row_max", "row_min",
                        "col_sum", "col_max", "col_min", "row_expand", "row_expand_add",
                        "row_expand_sub", "row_expand_mul", "row_expand_div", "col_expand",
                        "col_expand_add", "col_expand_sub", "col_expand_mul", "col_expand_div",
                        "matmul", "matmul_acc", "reshape", "slice", "assemble", "read", "write",
                        "transpose", "full"}) {
    names.push_back(std::string("tile.") + n);
    names.push_back(std::string("tensor.") + n);
  }
  for (const char* n : {"tile.load", "tile.store", "tile.move", "tile.create", "tile.alloc",
                        "tile.extract", "tensor.create", "system.bar_v", "system.bar_m",
                        "system.bar_all", "system.sync_src", "system.sync_dst"})
    names.push_back(n);
  for (const auto& n : names) {
    INFO(n);
    CHECK(reg.find(n) != nullptr);
  }
  CHECK(reg.find("tile.add")->scalar_form == "tile.adds");
  CHECK(reg.find("tensor.mul")->scalar_form == "tensor.muls");
  CHECK(reg.find("tensor.create")->aliases == std::vector<std::string>{"create_tensor"});
  CHECK(reg.find("tile.create")->aliases == std::vector<std::string>{"create_tile"});
  // kwargs in schema order (positional-attribute rule)
  const auto* cast = reg.find("tile.cast");
  REQUIRE(cast->kwargs.size() == 2);
  CHECK(cast->kwargs[0].name == "target_type");
  CHECK(cast->kwargs[1].name == "mode");
  const auto* alloc = reg.find("tile.alloc");
  REQUIRE(alloc->kwargs.size() == 2);
  CHECK(alloc->kwargs[0].name == "memory_space");
  CHECK(alloc->kwargs[1].name == "size");
  CHECK(reg.find("system.sync_src")->find_kwarg("wait_pipe")->enum_name == "PipeType");
  CHECK(reg.find("pl.nope") == nullptr);
}

TEST_CASE("an optional argument standing for another's value names an earlier argument of its kind", "[ops]") {
  int n = 0;
  for (const OpDef* op : OpRegistry::instance().all())
    for (size_t i = 0; i < op->args.size(); ++i) {
      const ArgSpec& a = op->args[i];
      if (a.same_as < 0) continue;
      INFO(op->name << " argument " << a.name);
      ++n;
      CHECK(a.optional);
      REQUIRE(static_cast<size_t>(a.same_as) < i);
      CHECK(op->args[static_cast<size_t>(a.same_as)].kind == a.kind);
    }
  CHECK(n >= 1);  // tile.load's valid_shape = its shape
  CHECK(OpRegistry::instance().find("tile.load")->args[3].same_as == 2);
}

TEST_CASE("registry facets: affinity, memory and aliasing", "[ops]") {
  auto& reg = OpRegistry::instance();
  CHECK(reg.find("tile.add")->affinity == CoreAffinity::Vector);
  CHECK(reg.find("tile.add")->output_memory_inherit_input == 0);
  CHECK(reg.find("tile.matmul")->affinity == CoreAffinity::Cube);
  CHECK(reg.find("tile.matmul")->output_memory == MemorySpace::Acc);
  CHECK(reg.find("tile.extract")->affinity == CoreAffinity::Cube);
  CHECK(reg.find("tile.load")->affinity == CoreAffinity::Shared);
  CHECK(reg.find("tile.load")->output_memory_kwarg == "target_memory");
  CHECK(reg.find("tile.store")->affinity == CoreAffinity::Shared);
  CHECK(reg.find("tensor.create")->affinity == CoreAffinity::Control);
  CHECK(reg.find("tile.matmul_acc")->output_reuses_input == 0);
  for (const char* n : {"tile.recip", "tile.rsqrt", "tile.row_sum", "tile.col_max", "tile.move", "tile.transpose"}) {
    INFO(n);
    CHECK(reg.find(n)->not_inplace_safe);
  }
  CHECK_FALSE(reg.find("tile.add")->not_inplace_safe);
  CHECK(reg.find("tile.row_expand_mul")->forbid_output_alias == std::vector<int>{1});
  CHECK(reg.find("tile.col_expand_sub")->forbid_output_alias == std::vector<int>{1});

  // tile.move's side follows the spaces it moves between.
  auto mat = tile_var("m", {64, 64}, DataType::FP16, MemorySpace::Mat);
  auto to_left = make_call("tile.move", {mat}, {{"target_memory", MemorySpace::Left}}, Span{});
  CHECK(call_affinity(*to_left) == CoreAffinity::Cube);
  auto v = tile_var("v", {64, 64});
  auto vv = make_call("tile.move", {v}, {{"target_memory", MemorySpace::Vec}}, Span{});
  CHECK(call_affinity(*vv) == CoreAffinity::Vector);
}

TEST_CASE("elementwise deduction: broadcasting, space inheritance", "[ops][deduce]") {
  auto a = tile_var("a", {64, 128});
  auto b = tile_var("b", {1, 128});
  auto c = make_call("tile.add", {a, b}, {}, Span{});
  CHECK(shape_of(c->type) == std::vector<int64_t>{64, 128});
  CHECK(as_tile(c->type)->space == MemorySpace::Vec);
  CHECK(as_tile(c->type)->dtype == DataType::FP32);
  CHECK_FALSE(as_tile(c->type)->memref);

  auto s = make_call("tile.muls", {a, make_float(2.0)}, {}, Span{});
  CHECK(shape_of(s->type) == std::vector<int64_t>{64, 128});

  auto ta = tensor_var("x", {8, 16});
  auto tb = tensor_var("y", {8, 16});
  auto tc = make_call("tensor.sub", {ta, tb}, {}, Span{});
  REQUIRE(as_tensor(tc->type));
  CHECK(shape_of(tc->type) == std::vector<int64_t>{8, 16});

  auto e = make_call("tile.exp", {a}, {}, Span{});
  CHECK(shape_of(e->type) == std::vector<int64_t>{64, 128});
}

TEST_CASE("reductions and broadcasts", "[ops][deduce]") {
  auto a = tile_var("a", {32, 64});
  auto tmp = tile_var("tmp", {32, 64});
  auto rs = make_call("tile.row_sum", {a, tmp}, {}, Span{});
  CHECK(shape_of(rs->type) == std::vector<int64_t>{32, 1});
  CHECK(as_tile(rs->type)->space == MemorySpace::Vec);
  auto cs = make_call("tile.col_max", {a}, {}, Span{});
  CHECK(shape_of(cs->type) == std::vector<int64_t>{1, 64});
  auto tr = make_call("tensor.row_max", {tensor_var("x", {16, 8})}, {}, Span{});
  CHECK(shape_of(tr->type) == std::vector<int64_t>{16, 1});

  auto vec = tile_var("v", {32, 1});
  auto ea = make_call("tile.row_expand_add", {a, vec}, {}, Span{});
  CHECK(shape_of(ea->type) == std::vector<int64_t>{32, 64});
  auto row = tile_var("r", {1, 64});
  auto ce = make_call("tile.col_expand_mul", {a, row}, {}, Span{});
  CHECK(shape_of(ce->type) == std::vector<int64_t>{32, 64});

  // tile row_sum requires its tmp tile; tensor row_sum takes only x
  CHECK_THAT(error_of("tile.row_sum", {a}), Catch::Contains("takes 2 positional arguments but 1 was given"));
  CHECK_THAT(error_of("tensor.row_sum", {tensor_var("x", {4, 4}), tensor_var("y", {4, 4})}),
             Catch::Contains("takes 1 positional argument but 2 were given"));
  // wrong vector shapes
  CHECK_THAT(error_of("tile.row_expand_add", {a, tile_var("w", {32, 2})}),
             Catch::Contains("'row_vec' must be a [R, 1] vector"));
  CHECK_THAT(error_of("tile.row_expand_add", {a, tile_var("w", {16, 1})}), Catch::Contains("rows must match"));
  CHECK_THAT(error_of("tile.col_expand", {a, tile_var("w", {1, 32})}), Catch::Contains("columns must match"));
}

TEST_CASE("matmul deduction", "[ops][deduce]") {
  auto l = tile_var("l", {64, 32}, DataType::FP16, MemorySpace::Left);
  auto r = tile_var("r", {32, 128}, DataType::FP16, MemorySpace::Right);
  auto m = make_call("tile.matmul", {l, r}, {}, Span{});
  CHECK(shape_of(m->type) == std::vector<int64_t>{64, 128});
  CHECK(as_tile(m->type)->dtype == DataType::FP32);
  CHECK(as_tile(m->type)->space == MemorySpace::Acc);

  auto l8 = tile_var("l8", {16, 32}, DataType::INT8, MemorySpace::Left);
  auto r8 = tile_var("r8", {32, 16}, DataType::INT8, MemorySpace::Right);
  CHECK(as_tile(make_call("tile.matmul", {l8, r8}, {}, Span{})->type)->dtype == DataType::INT32);

  auto acc = m;  // an Acc tile [64,128] FP32
  auto acc_var = make_var("acc", m->type);
  auto ma = make_call("tile.matmul_acc", {acc_var, l, r}, {}, Span{});
  CHECK(ma->type == acc_var->type);

  CHECK_THAT(error_of("tile.matmul", {l, tile_var("r2", {16, 128}, DataType::FP16, MemorySpace::Right)}),
             Catch::Contains("inner dimensions differ"));
  CHECK_THAT(error_of("tile.matmul", {l, r}, {{"b_trans", true}}),
             Catch::Contains("unexpected keyword argument 'b_trans'"));
  CHECK_THAT(error_of("tile.matmul_acc", {make_var("bad", tile_var("q", {64, 64}, DataType::FP32, MemorySpace::Acc)->type), l, r}),
             Catch::Contains("accumulator 'acc' has shape [64, 64] but the product is [64, 128]"));

  auto ta = tensor_var("a", {128, 64}, DataType::BF16);
  auto tb = tensor_var("b", {256, 64}, DataType::BF16);
  auto tm = make_call("tensor.matmul", {ta, tb}, {{"b_trans", true}, {"out_dtype", DataType::FP32}}, Span{});
  CHECK(shape_of(tm->type) == std::vector<int64_t>{128, 256});
  CHECK(as_tensor(tm->type)->dtype == DataType::FP32);
  CHECK_THAT(error_of("tensor.matmul", {ta, tb}), Catch::Contains("inner dimensions differ"));
}

TEST_CASE("data movement deduction", "[ops][deduce]") {
  auto x = tensor_var("x", {256, 128}, DataType::FP16);
  auto ld = make_call("tile.load", {x, idx({0, 0}), idx({64, 128}), idx({64, 128})}, {}, Span{});
  CHECK(shape_of(ld->type) == std::vector<int64_t>{64, 128});
  CHECK(as_tile(ld->type)->space == MemorySpace::Vec);  // default target_memory
  CHECK(as_tile(ld->type)->dtype == DataType::FP16);
  CHECK_FALSE(as_tile(ld->type)->view);  // valid_shape == shape: implicit
  auto ldm = make_call("tile.load", {x, idx({0, 0}), idx({64, 64})}, {{"target_memory", MemorySpace::Mat}}, Span{});
  CHECK(as_tile(ldm->type)->space == MemorySpace::Mat);
  auto ldv = make_call("tile.load", {x, idx({0, 0}), idx({64, 64}), idx({64, 10})}, {}, Span{});
  REQUIRE(as_tile(ldv->type)->view);
  CHECK(*static_shape(as_tile(ldv->type)->view->valid_shape) == std::vector<int64_t>{64, 10});
  CHECK_THAT(error_of("tile.load", {x, idx({0, 0}), idx({64, 64})}, {{"target_memory", MemorySpace::Left}}),
             Catch::Contains("cannot load into pl.Mem.Left"));

  auto t = make_var("t", ld->type);
  auto st = make_call("tile.store", {t, idx({0, 0}), x}, {}, Span{});
  CHECK(st->type == x->type);
  CHECK_THAT(error_of("tile.store", {tile_var("f", {64, 128}), idx({0, 0}), x}),
             Catch::Contains("'tile' has dtype FP32 but operand 'output_tensor' has dtype FP16"));

  auto mv = make_call("tile.move", {t}, {{"target_memory", MemorySpace::Left}}, Span{});
  CHECK(as_tile(mv->type)->space == MemorySpace::Left);
  CHECK_THAT(error_of("tile.move", {t}), Catch::Contains("missing target_memory"));

  auto ct = make_call("tile.create", {idx({32, 1})}, {{"dtype", DataType::FP32}}, Span{});
  CHECK(as_tile(ct->type)->space == MemorySpace::Vec);
  CHECK(shape_of(ct->type) == std::vector<int64_t>{32, 1});
  auto tc = make_call("tensor.create", {idx({4, 8})}, {{"dtype", DataType::BF16}}, Span{});
  CHECK(as_tensor(tc->type)->dtype == DataType::BF16);
  auto al = make_call("tile.alloc", {}, {{"memory_space", MemorySpace::Vec}, {"size", int64_t(16384)}}, Span{});
  CHECK(al->type->kind == TypeKind::Ptr);
  auto ex = make_call("tile.extract", {make_var("m", ldm->type), make_int(0), make_int(16), idx({64, 16})},
                      {{"target_memory", MemorySpace::Left}}, Span{});
  CHECK(shape_of(ex->type) == std::vector<int64_t>{64, 16});
  CHECK(as_tile(ex->type)->space == MemorySpace::Left);
}

TEST_CASE("views, casts and element access", "[ops][deduce]") {
  auto x = tensor_var("x", {64, 128});
  auto sl = make_call("tensor.slice", {x, idx({16, 32}), idx({8, 0})}, {}, Span{});
  CHECK(shape_of(sl->type) == std::vector<int64_t>{16, 32});
  CHECK_THAT(error_of("tensor.slice", {x, idx({16, 32}), idx({60, 0})}), Catch::Contains("outside"));
  CHECK_THAT(error_of("tensor.slice", {x, idx({16, 32}), idx({0})}),
             Catch::Contains("shape has 2 dimensions but offset has 1"));

  auto rs = make_call("tensor.reshape", {x, idx({128, 64})}, {}, Span{});
  CHECK(shape_of(rs->type) == std::vector<int64_t>{128, 64});
  CHECK_THAT(error_of("tensor.reshape", {x, idx({128, 32})}),
             Catch::Contains("cannot reshape [64, 128] (8192 elements) to [128, 32] (4096 elements)"));

  auto a = tile_var("a", {16, 32});
  auto c = make_call("tile.cast", {a}, {{"target_type", DataType::BF16}}, Span{});
  CHECK(as_tile(c->type)->dtype == DataType::BF16);
  CHECK(as_tile(c->type)->space == MemorySpace::Vec);
  CHECK_THAT(error_of("tile.cast", {a}), Catch::Contains("missing the target dtype"));
  CHECK_THAT(error_of("tile.cast", {a}, {{"target_type", DataType::BF16}, {"mode", std::string("bogus")}}),
             Catch::Contains("unknown rounding mode"));

  auto rd = make_call("tensor.read", {x, idx({1, 2})}, {}, Span{});
  CHECK(as_scalar(rd->type)->dtype == DataType::FP32);
  CHECK_THAT(error_of("tensor.read", {x, idx({1})}), Catch::Contains("1 indices given"));
  auto wr = make_call("tile.write", {a, idx({0, 0}), make_float(1.0)}, {}, Span{});
  CHECK(wr->type == a->type);

  auto tr = make_call("tensor.transpose", {x, make_int(0), make_int(1)}, {}, Span{});
  CHECK(shape_of(tr->type) == std::vector<int64_t>{128, 64});
  CHECK_THAT(error_of("tensor.transpose", {x, make_int(0), make_int(2)}), Catch::Contains("out of range"));

  auto as = make_call("tensor.assemble", {x, tensor_var("s", {16, 128}), idx({48, 0})}, {}, Span{});
  CHECK(as->type == x->type);
  CHECK_THAT(error_of("tensor.assemble", {x, tensor_var("s", {16, 128}), idx({56, 0})}),
             Catch::Contains("does not fit"));
  // A padded window places its valid part: [16, 128] with valid [8, 128] fits at row 56 of 64.
  auto padded = make_call("tensor.slice", {tensor_var("p", {16, 128}), idx({16, 128}), idx({0, 0}), idx({8, 128})}, {},
                          Span{});
  CHECK(make_call("tensor.assemble", {x, padded, idx({56, 0})}, {}, Span{})->type == x->type);
  CHECK_THAT(error_of("tensor.assemble", {x, padded, idx({57, 0})}), Catch::Contains("(valid [8, 128])"));
  auto f = make_call("tensor.full", {idx({4, 4})}, {{"dtype", DataType::FP32}, {"value", 0.0}}, Span{});
  CHECK(shape_of(f->type) == std::vector<int64_t>{4, 4});
}

TEST_CASE("misuse is reported as E302 naming the op and operand", "[ops][errors]") {
  auto a = tile_var("a", {64, 128});
  auto h = tile_var("h", {64, 128}, DataType::FP16);
  // dtype mismatch names both operands
  auto msg = error_of("tile.add", {a, h});
  CHECK_THAT(msg, Catch::Contains("pl.tile.add"));
  CHECK_THAT(msg, Catch::Contains("'rhs' has dtype FP16"));
  CHECK_THAT(msg, Catch::Contains("'lhs' has dtype FP32"));
  // shape mismatch
  CHECK_THAT(error_of("tile.add", {a, tile_var("b", {32, 128})}), Catch::Contains("not broadcast-compatible"));
  // wrong arity
  CHECK_THAT(error_of("tile.add", {a}), Catch::Contains("pl.tile.add() takes 2 positional arguments but 1 was given"));
  // wrong operand kind
  CHECK_THAT(error_of("tile.add", {a, tensor_var("x", {64, 128})}),
             Catch::Contains("argument 'rhs' of pl.tile.add() must be a Tile, got a Tensor"));
  CHECK_THAT(error_of("tile.adds", {a, a}), Catch::Contains("must be a scalar"));
  // unknown kwarg
  CHECK_THAT(error_of("tile.exp", {a}, {{"fast", true}}), Catch::Contains("unexpected keyword argument 'fast'"));
  // wrong kwarg kind
  CHECK_THAT(error_of("tile.cast", {a}, {{"target_type", int64_t(3)}}), Catch::Contains("wrong kind of value"));
  // unknown op
  try {
    make_call("tile.nope", {a}, {}, Span{});
    FAIL("expected an error");
  } catch (const CompileError& e) {
    CHECK(e.diagnostics()[0].code == "E300");
  }
  // system ops
  CHECK(make_call("system.bar_v", {}, {}, Span{})->type->kind == TypeKind::Tuple);
  KW sync{{"set_pipe", EnumLit{"PipeType", "MTE2"}}, {"wait_pipe", EnumLit{"PipeType", "V"}}, {"event_id", int64_t(0)}};
  CHECK_NOTHROW(make_call("system.sync_src", {}, sync, Span{}));
  CHECK_THAT(error_of("system.sync_dst", {}, {{"event_id", int64_t(0)}}), Catch::Contains("missing set_pipe"));
  CHECK_THAT(error_of("system.sync_src", {}, {{"set_pipe", EnumLit{"Color", "red"}}}), Catch::Contains("wrong kind"));
}

TEST_CASE("pl.system.syncall: the side follows core_type; operands by mode", "[ops][errors]") {
  auto ws = tensor_var("ws", {16}, DataType::INT32);
  auto used = make_var("n", std::make_shared<ScalarType>(DataType::INT32));
  // The side of the barrier is its participant set (mix: both halves of a mixed kernel).
  CHECK(call_affinity(*make_call("system.syncall", {}, {{"core_type", std::string("aiv_only")}}, Span{})) ==
        CoreAffinity::Vector);
  CHECK(call_affinity(*make_call("system.syncall", {}, {{"core_type", std::string("aic_only")}}, Span{})) ==
        CoreAffinity::Cube);
  auto mix = make_call("system.syncall", {}, {}, Span{});
  CHECK(call_affinity(*mix) == CoreAffinity::Shared);
  CHECK(mix->kwarg_string("core_type") == "mix");  // the registry's default, filled in
  CHECK(error_of("system.syncall", {ws, used}, {{"mode", std::string("soft")}}).empty());
  CHECK(error_of("system.syncall", {ws}, {{"mode", std::string("soft")}}).empty());
  CHECK(error_of("system.syncall", {}, {{"core_type", std::string("all")}}).find("is not one of") != std::string::npos);
  CHECK(error_of("system.syncall", {ws}).find("the hard barrier takes no operands") != std::string::npos);
  CHECK(error_of("system.syncall", {}, {{"mode", std::string("soft")}}).find("needs a GM workspace") != std::string::npos);
  CHECK(error_of("system.syncall", {tensor_var("f", {16})}, {{"mode", std::string("soft")}})
            .find("counts in an INT32 GM tensor") != std::string::npos);
  CHECK(error_of("system.syncall", {tensor_var("w8", {8}, DataType::INT32)}, {{"mode", std::string("soft")}})
            .find("has 8 elements; the soft barrier needs at least 16") != std::string::npos);
  CHECK(error_of("system.syncall", {ws, make_int(-1)}, {{"mode", std::string("soft")}})
            .find("used_cores = -1 is outside") != std::string::npos);
}

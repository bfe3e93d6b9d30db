// InjectGMPipeBuffer — on 910B the cross-core FIFO of a mixed kernel goes through global memory:
// the producer writes each tile into a GM slot ring and the consumer copies it into its window
// (pto-isa a2a3 TPipe takes that ring as its first argument). This pass gives every mixed
// Group, and both its halves, a trailing parameter `gm_pipe_buffer` (an INT8 tensor of
// slot_num × slot_size bytes per direction the pipe carries: both directions place V2C after C2V)
// which the halves' pipe inits receive as their GM slot buffer, and makes each orchestration call
// of the Group create that workspace (tensor.create) and pass it. The 950 writes into the
// consumer's memory directly: no change there. The buffer is an In parameter: the task's own
// scratch, which no other task reads or writes, so it orders nothing (and the halves return
// nothing for it) — ir-and-passes.md step 23.
#include <fmt/format.h>

#include <map>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tensor_access.h"

namespace pypto::passes {

using namespace ir;

namespace {

const OpDef* op(const char* n) { return OpRegistry::instance().find(n); }

// The GM ring bytes a half's pipe init asks for (0: no pipe init).
int64_t ring_bytes(const Function& f) {
  int64_t bytes = 0;
  for (const auto& s : flatten_body(f.body)) {
    const auto* e = as<EvalStmt>(s);
    const auto* c = e ? as<Call>(e->expr) : nullptr;
    if (!c || (c->op != op("system.aic_initialize_pipe") && c->op != op("system.aiv_initialize_pipe"))) continue;
    const int64_t dirs = kw_int(*c, "dir_mask", 1) == 3 ? 2 : 1;
    bytes = std::max(bytes, kw_int(*c, "slot_num", 2) * kw_int(*c, "slot_size", 0) * dirs);
  }
  return bytes;
}

TypePtr buffer_type(int64_t bytes) {
  return std::make_shared<TensorType>(DataType::INT8, std::vector<ExprPtr>{make_int(bytes)});
}

// A half with the buffer as its last parameter, handed to its pipe init.
FunctionPtr with_buffer(const Function& f, int64_t bytes) {
  auto g = std::make_shared<Function>(f);
  auto buf = std::make_shared<Var>("gm_pipe_buffer", buffer_type(bytes), f.span);
  g->params.push_back(buf);
  g->param_directions.push_back(ParamDirection::In);
  std::vector<StmtPtr> body;
  for (const auto& s : flatten_body(f.body)) {
    const auto* e = as<EvalStmt>(s);
    const auto* c = e ? as<Call>(e->expr) : nullptr;
    if (c && (c->op == op("system.aic_initialize_pipe") || c->op == op("system.aiv_initialize_pipe"))) {
      auto args = c->args;
      args.resize(2);
      args.push_back(buf);
      body.push_back(std::make_shared<EvalStmt>(make_call(*c->op, args, c->kwargs, c->span), s->span));
      continue;
    }
    body.push_back(s);
  }
  g->body = make_body(std::move(body), f.body->span);
  return g;
}

// Orchestration calls of the rewritten Groups: a fresh workspace per call.
class CallSites : public BindingMutator {
 public:
  explicit CallSites(const std::map<std::string, int64_t>& groups) : groups_(groups) {}

 protected:
  std::vector<StmtPtr> pending_;
  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    auto it = e->op ? groups_.end() : groups_.find(e->callee);
    if (it == groups_.end()) return BindingMutator::mutate_call(e);
    std::vector<ExprPtr> args;
    mutate_list(e->args, args);
    auto ws = std::make_shared<Var>(e->callee + "_pipe_buffer", buffer_type(it->second), e->span);
    pending_.push_back(std::make_shared<AssignStmt>(
        ws, make_call("tensor.create", {index_list({make_int(it->second)}, e->span)}, {{"dtype", DataType::INT8}}, e->span),
        e->span));
    args.push_back(ws);
    auto n = std::make_shared<Call>(*e);
    n->args = std::move(args);
    return n;
  }
  StmtPtr flush(StmtPtr s) {
    if (pending_.empty()) return s;
    std::vector<StmtPtr> out = std::move(pending_);
    pending_.clear();
    out.push_back(std::move(s));
    return std::make_shared<SeqStmts>(std::move(out), out.back()->span);
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    return flush(BindingMutator::mutate_assign(s));
  }
  StmtPtr mutate_eval(const std::shared_ptr<const EvalStmt>& s) override { return flush(BindingMutator::mutate_eval(s)); }

 private:
  const std::map<std::string, int64_t>& groups_;
};

}  // namespace

Pass inject_gm_pipe_buffer_pass() {
  return Pass{"InjectGMPipeBuffer",
              "910B: every mixed Group and its halves get a trailing gm_pipe_buffer workspace (the GM slot ring "
              "of their cross-core pipe), handed to the pipe inits; orchestration calls create and pass it.",
              {{Property::MixedKernelExpanded}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                if (ctx.soc != Soc::Ascend910B) return p;
                std::map<std::string, int64_t> groups;  // Group → ring bytes
                std::map<std::string, FunctionPtr> replace;
                for (const auto& g : p->functions) {
                  auto m = mixed_group_members(*p, *g);
                  if (!m) continue;
                  const int64_t bytes = std::max(ring_bytes(*m->aic), ring_bytes(*m->aiv));
                  if (bytes <= 0) continue;
                  groups[g->name] = bytes;
                  replace[m->aic->name] = with_buffer(*m->aic, bytes);
                  replace[m->aiv->name] = with_buffer(*m->aiv, bytes);
                  // The Group: the parameter, passed on to both halves.
                  auto ng = std::make_shared<Function>(*g);
                  auto buf = std::make_shared<Var>("gm_pipe_buffer", buffer_type(bytes), g->span);
                  ng->params.push_back(buf);
                  ng->param_directions.push_back(ParamDirection::In);
                  std::vector<StmtPtr> body;
                  for (const auto& s : flatten_body(g->body)) {
                    const Call* c = nullptr;
                    if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
                    if (const auto* e = as<EvalStmt>(s)) c = as<Call>(e->expr);
                    if (!c) {
                      body.push_back(s);
                      continue;
                    }
                    auto n = std::make_shared<Call>(*c);
                    n->args.push_back(buf);
                    if (const auto* a = as<AssignStmt>(s)) body.push_back(std::make_shared<AssignStmt>(a->var, n, s->span));
                    else body.push_back(std::make_shared<EvalStmt>(n, s->span));
                  }
                  ng->body = make_body(std::move(body), g->body->span);
                  replace[g->name] = ng;
                }
                if (groups.empty()) return p;
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (auto it = replace.find(f->name); it != replace.end()) return it->second;
                  if (f->type != FunctionType::Orchestration && f->type != FunctionType::Opaque) return f;
                  CallSites cs(groups);
                  return cs.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes

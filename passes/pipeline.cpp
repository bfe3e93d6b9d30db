// The default pass pipeline (one line per pass, in execution order) and the runner that checks
// property contracts between passes.
#include <cctype>
#include "passes/pipeline.h"

#include <fmt/format.h>
#include <stdexcept>

#include "passes/insert_pipe_sync.h"
#include "passes/passes.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "ir/visitor.h"

namespace pypto::passes {

using namespace ir;

const std::vector<Pass>& default_pipeline() {
  static const std::vector<Pass> list = {
      check_program_forms_pass(),          // forms kept by the front end that no pass can compile yet
      inline_functions_pass(),             // splice @pl.inline function bodies into their callers
      ctrl_flow_transform_pass(),          // break / continue in kernel loops → flags, guarded ifs, while
      unroll_loops_pass(),                 // expand pl.unroll loops with constant bounds
      convert_to_ssa_pass(),               // renaming, if-phis, loop iter_args → SSAForm
      simplify_pass(),                     // constant folding, scalar-constant propagation, scalar DCE
      check_window_bounds_pass(),          // windows outside their operand, where the loops make it known
      normalize_stmt_structure_pass(),     // flatten SeqStmts → NoRedundantBlocks
      flatten_call_expr_pass(),            // three-address form → NoNestedCall
      outline_incore_scopes_pass(),        // pl.at(CORE_GROUP) scopes → InCore kernels + calls
      outline_cluster_scopes_pass(),       // pl.spmd(N) around one kernel → the call's launch spec (N blocks)
      bind_kernel_param_dims_pass(),       // computed extents of kernel tensor params → descriptor symbols; dim reads fold
      convert_tensor_to_tile_ops_pass(),   // tensor ops in kernels → tile ops (one-tile tensors)
      optimize_orch_tensors_pass(),        // kernel Out merged into the In it replaces (InOut); assemble loops store
      lower_composite_ops_pass(),          // tile.sin / tile.cos → range reduction + polynomial
      legalize_tile_cast_pass(),           // tile.cast pairs TCVT lacks → chains of native casts
      flatten_tile_nd_to_2d_pass(),        // rank > 2 tiles → 2-D (class a: check)
      auto_tile_matmul_l0_pass(),          // matmuls overflowing L0A / L0B / L0C → L0 blocks, K loops
      infer_tile_memory_space_pass(),      // memory space for every tile, tile.move at mismatches
      canonicalize_tile_slice_pass(),      // a Mat tile's window moved to Left / Right → one tile.extract
      insert_mx_scale_addr_pass(),         // MX matmuls: scale tiles bound to their data tiles (950 only)
      resolve_backend_op_layouts_pass(),   // row-major-only ops on [N,1] tiles (class a: check)
      expand_mixed_kernel_pass(),          // InCore kernels → AIV / AIC; mixed ones → AIC + AIV + Group over a FIFO
      inject_gm_pipe_buffer_pass(),        // 910B: the GM slot ring of each mixed kernel's pipe, a workspace per call
      split_vector_kernel_pass(),          // pl.split: a mixed kernel's AIV half on both lanes, half a tile each
      check_syncall_launches_pass(),       // a hard pl.system.syncall's launch fills its cores, with sync_start
      check_kernel_forms_pass(),           // kernel forms the C++ tile backend cannot write yet
      normalize_return_order_pass(),       // kernels return their Out/InOut params in order
      skew_cross_core_pipeline_pass(),     // pipeline loops sending then receiving a tile: the sends run ahead
      lower_pipeline_loops_pass(),         // pl.pipeline(stage=F): the body F times per iteration, leftover clones after
      canonicalize_io_order_pass(),        // pipeline bodies ordered scalar → load → compute → store; loops sequential
      materialize_tensor_strides_pass(),   // packed row-major strides on every TensorView
      init_memref_pass(),                  // a MemRef per tile/tensor, tile.alloc per buffer
      memory_reuse_pass(),                 // lifetime-based buffer sharing per memory space
      allocate_memory_addr_pass(),         // byte addresses per space + capacity check
      fold_no_op_reshape_pass(),           // a reshape onto its own buffer at its own signature → copy
      fuse_create_assemble_to_slice_pass(),// create + single assemble in orchestration → slice view
      insert_pipe_sync_pass(),             // set/wait flags + barriers inside AIV/AIC kernels
      derive_call_directions_pass(),       // arg_directions on every function call
      auto_derive_task_dependencies_pass(),// --auto-deps: explicit edges between conflicting tasks, covered args untracked
      check_task_arg_limits_pass(),        // the runtime ABI's tensor / scalar argument limits
      expand_manual_phase_fence_pass(),    // manual scopes: M submits on a whole TaskId array → one task_dummy barrier
      materialize_runtime_scopes_pass(),   // runtime scopes around orchestration bodies
      classify_iter_arg_carry_pass(),      // orchestration loop carries: alias, or rebind (ping-pong buffers)
      check_orchestration_forms_pass(),    // orchestration forms the PTO2 back end cannot write yet
      plan_tensor_allocs_pass(),           // tensor.create → alloc_tensors batches (alloc_batch=N)
  };
  return list;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const auto& p : default_pipeline()) names.push_back(p.name);
  return names;
}

std::string snake_case_name(std::string_view camel) {
  // ConvertToSSA → convert_to_ssa, InitMemRef → init_mem_ref, FlattenTileNdTo2D → flatten_tile_nd_to_2d.
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    const char c = camel[i];
    const bool up = std::isupper(static_cast<unsigned char>(c));
    if (up && i > 0) {
      const char prev = camel[i - 1];
      const bool next_lower = i + 1 < camel.size() && std::islower(static_cast<unsigned char>(camel[i + 1]));
      if (std::islower(static_cast<unsigned char>(prev)) ||
          (std::isupper(static_cast<unsigned char>(prev)) && next_lower))
        out += '_';
    } else if (std::isdigit(static_cast<unsigned char>(c)) && i > 0 && std::isalpha(static_cast<unsigned char>(camel[i - 1]))) {
      out += '_';
    }
    out += char(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

namespace {

// A pass that changes nothing and rejects, at its line, the first scope of one of `kinds`.
Pass absent_feature_pass(std::string name, std::string what, std::vector<ScopeKind> kinds) {
  std::string desc = fmt::format("Not in the default pipeline: {} are not compiled yet; run by name it changes nothing "
                                 "and rejects such a scope at its line.", what);
  return Pass{std::move(name), std::move(desc), {{}, {}, {}}, [kinds, what](const ProgramPtr& p, PassContext&) {
                struct Finder : ir::IRVisitor {
                  const std::vector<ScopeKind>& kinds;
                  const std::string& what;
                  Finder(const std::vector<ScopeKind>& k, const std::string& w) : kinds(k), what(w) {}
                  void visit_scope(const ScopeStmt& s) override {
                    for (ScopeKind k : kinds)
                      if (s.scope == k)
                        throw CompileError("E501", s.span, fmt::format("{} are not supported yet by the pass pipeline", what),
                                           "keep kernels in pl.at(level=pl.Level.CORE_GROUP) scopes for now");
                    ir::IRVisitor::visit_scope(s);
                  }
                } finder(kinds, what);
                finder.visit_program(*p);
                return p;
              }};
}

}  // namespace

// Reference passes for features this pipeline does not compile yet. They are not in the default
// pipeline (`pypto passes` does not list them), but `--passes` accepts their names so that a
// reference pass list runs: each changes nothing and rejects the feature where it appears.
// Also the reference's name for work one of ours does under another name: run by that name, the
// pass of ours runs.
const std::vector<Pass>& reference_only_passes() {
  static const std::vector<Pass> list = [] {
    std::vector<Pass> l = {
        absent_feature_pass("OutlineHierarchyScopes", "pl.at scopes of host / hierarchy levels", {ScopeKind::Hierarchy}),
    };
    // The reference's MaterializeValidShapeSymbols gives a kernel the symbols of its valid shapes
    // that no tensor it takes carries, as trailing scalar parameters fed by its callers: the
    // free-symbol part of our BindKernelParamDims, which runs (early, before tiling) in its place.
    Pass mvs = bind_kernel_param_dims_pass();
    mvs.name = "MaterializeValidShapeSymbols";
    mvs.description = "The reference's name for BindKernelParamDims' free-symbol step (a symbol a kernel reads that no "
                      "tensor it takes carries becomes a scalar parameter its callers feed); run by this name, "
                      "BindKernelParamDims runs.";
    l.push_back(std::move(mvs));
    return l;
  }();
  return list;
}

const Pass& find_pass(std::string_view name) {
  for (const auto& p : default_pipeline())
    if (p.name == name || snake_case_name(p.name) == name) return p;
  for (const auto& p : reference_only_passes())
    if (p.name == name || snake_case_name(p.name) == name) return p;
  std::string valid;
  for (const auto& p : default_pipeline()) valid += (valid.empty() ? "" : ", ") + p.name;
  throw std::invalid_argument(fmt::format("unknown pass '{}'; valid passes: {}", name, valid));
}

std::string format_properties(const PropertySet& props) {
  std::string s;
  for (auto p : props.list()) s += (s.empty() ? "" : ", ") + std::string(to_string(p));
  return "{" + s + "}";
}

namespace {

std::string severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "ERROR";
    case Severity::Warning: return "WARNING";
    case Severity::Note: return "NOTE";
  }
  return "ERROR";
}

std::string format_report(const std::vector<Diagnostic>& diags) {
  size_t errors = 0, warnings = 0;
  for (const auto& d : diags) (d.severity == Severity::Error ? errors : warnings) += 1;
  std::string r = "IR Verification Report\n";
  r += fmt::format("Total diagnostics: {} ({} errors, {} warnings)\n", diags.size(), errors, warnings);
  for (size_t i = 0; i < diags.size(); ++i) {
    const auto& d = diags[i];
    r += fmt::format("[{}] {} - {}\n  Message: {}\n", i + 1, severity_name(d.severity), d.code, d.message);
    if (d.span.valid()) r += fmt::format("  Location: {}\n", d.span.to_string());
  }
  r += fmt::format("Status: {}", errors ? fmt::format("FAILED ({} error(s) found)", errors) : "PASSED");
  return r;
}

// PassContext::fault_after: the first tile.add / tensor.add (or adds) becomes its sub form.
ProgramPtr inject_fault(const ProgramPtr& p) {
  struct Flip : ir::IRMutator {
    bool done = false;
    ExprPtr mutate_call(const std::shared_ptr<const ir::Call>& c) override {
      auto out = ir::IRMutator::mutate_call(c);
      const auto* call = ir::as<ir::Call>(out);
      if (done || !call || !call->op) return out;
      const std::string n = call->op->name;
      const bool add = n == "tile.add" || n == "tensor.add" || n == "tile.adds" || n == "tensor.adds";
      if (!add) return out;
      done = true;
      const ir::OpDef* sub = ir::OpRegistry::instance().find(n.substr(0, n.find('.') + 1) + (n.back() == 's' ? "subs" : "sub"));
      auto flipped = std::make_shared<ir::Call>(sub, call->callee, call->args, call->kwargs, call->type, call->span,
                                                call->arg_directions);
      flipped->dispatch = call->dispatch;
      return flipped;
    }
  } flip;
  return flip.mutate_program(p);
}

}  // namespace

ProgramPtr run_pass_list(const ProgramPtr& program, const std::vector<const Pass*>& passes, PassContext& ctx,
                         const PassCallback& after_each, bool user_selected) {
  ProgramPtr cur = program;
  PropertySet established;  // properties known to hold on `cur`
  for (size_t i = 0; i < passes.size(); ++i) {
    const Pass& pass = *passes[i];
    if (ctx.verify) {
      PropertySet missing = pass.properties.required - established;
      if (!missing.empty()) {
        DiagnosticSink sink;
        if (!ir::verify(*cur, missing, sink, ir::VerifyOptions{ctx.soc})) {
          std::string msg = fmt::format("Required properties {} do not hold before '{}':\n{}",
                                        format_properties(missing), pass.name, format_report(sink.diagnostics()));
          if (user_selected)
            throw CompileError("E900", {}, msg, "run the passes that establish these properties first");
          throw InternalError(pass.name, msg);
        }
        established = established | missing;
      }
    }
    cur = pass.run(cur, ctx);
    if (!ctx.fault_after.empty() && ctx.fault_after == pass.name) cur = inject_fault(cur);
    established = established - pass.properties.invalidated;
    if (ctx.verify && !pass.properties.produced.empty()) {
      DiagnosticSink sink;
      if (!ir::verify(*cur, pass.properties.produced, sink, ir::VerifyOptions{ctx.soc}))
        throw InternalError(pass.name, fmt::format("Verification failed after '{}' for properties {}:\n{}", pass.name,
                                                   format_properties(pass.properties.produced),
                                                   format_report(sink.diagnostics())));
    }
    established = established | pass.properties.produced;
    if (after_each) after_each(pass, i, cur);
  }
  return cur;
}

ProgramPtr run_pipeline(const ProgramPtr& program, PassContext& ctx, const PassCallback& after_each) {
  std::vector<const Pass*> list;
  for (const auto& p : default_pipeline()) list.push_back(&p);
  return run_pass_list(program, list, ctx, after_each, false);
}

ProgramPtr run_passes(const ProgramPtr& program, const std::vector<std::string>& names, PassContext& ctx,
                      const PassCallback& after_each) {
  std::vector<const Pass*> list;
  for (const auto& n : names) list.push_back(&find_pass(n));
  return run_pass_list(program, list, ctx, after_each, true);
}

}  // namespace pypto::passes

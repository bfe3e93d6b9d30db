// `pypto`: the command-line tool. Subcommands: check, ir, diff, passes, ops, build, eval, test (see --help).
// Each command lives in cli/cmd_*.cpp; this file only declares the command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/heap_prefault.h"
#include "cli/sanitizers.h"
#include "cli/small_alloc.h"
#include "parser/parse_cache.h"

#ifndef PYPTO_VERSION
#define PYPTO_VERSION "0.0.0"
#endif

using namespace pypto::cli;

namespace {

// The run-time values of eval and test (the flags bin/run spells --scalar and --shape).
void add_run_values(CLI::App* cmd, RunValues& r) {
  cmd->add_option("--run-scalar", r.scalars,
                  "Value of a scalar parameter left a runtime value (a typed pl.Scalar, or --scalar n=runtime): "
                  "the interpreter takes it and bin/run gets it as --scalar n=V; an integer one also gives the "
                  "dynamic dim of its name (repeatable)")
      ->type_name("NAME=VALUE");
  cmd->add_option("--shape", r.shapes,
                  "Extents of a tensor parameter whose dynamic dims no scalar and no input gives (an Out tensor, "
                  "or a generated input), e.g. --shape out=[100,128]; passed on to bin/run (repeatable)")
      ->type_name("NAME=[D0,D1,...]");
}

void add_auto_deps(CLI::App* cmd, CommonOptions& o) {
  cmd->add_flag("--auto-deps", o.auto_deps,
                "Derive explicit task edges in automatic scopes and stop tracking the arguments they cover "
                "(AutoDeriveTaskDependencies; off by default, as in the reference)");
}

void add_common(CLI::App* cmd, CommonOptions& o, bool with_entry = true) {
  if (with_entry) {
    cmd->add_option("--entry", o.entry, "Entry to compile: a @pl.program class or @pl.jit function (default: the only one)");
    cmd->add_option("-D,--define", o.defines,
                    "Override a module-level constant, e.g. -D ROWS=512; MODULE.NAME=VALUE sets one of an imported "
                    "module (-D config.VARIANT=pro: a bare word is a string) (repeatable)")
        ->type_name("[MODULE.]NAME=VALUE");
    cmd->add_option("--arg", o.args,
                    "Type a bare pl.Tensor parameter of the entry: DTYPE[d0,d1,...], a dim an integer, a module "
                    "constant, ? (dynamic) or a dynamic-dim name, e.g. --arg a=FP32[64,512] (repeatable)")
        ->type_name("NAME=DTYPE[dims]");
    cmd->add_option("--scalar", o.scalars,
                    "Bind a scalar parameter of the entry at compile time (--scalar n=64, folded, leaves the "
                    "signature), or keep it a runtime argument (--scalar n=runtime; bin/run --scalar n=64 gives it)")
        ->type_name("NAME=VALUE|runtime");
    cmd->add_option("--factory-arg", o.factory_args,
                    "With --entry naming a factory (a function that builds and returns a @pl.program): override "
                    "one of its arguments, e.g. --factory-arg batch=64 (a Python constant expression; repeatable)")
        ->type_name("NAME=VALUE");
    cmd->add_option("--specs", o.specs,
                    "Spec function that types bare entry tensors without --arg: it returns TensorSpec(name, shape, "
                    "torch.dtype, ...) records, read statically (default: build_tensor_specs, then build_specs; "
                    "then the file's own call of the entry, entry.lower(*inputs, out), with its torch tensors followed by "
                    "shape and dtype; 'none' to use neither)")
        ->type_name("FUNC");
    cmd->add_option("-I,--include", o.include_dirs,
                    "Also search DIR for imported modules (after the importing file's and the main file's "
                    "directory) (repeatable)")
        ->type_name("DIR");
  }
  cmd->add_option("--diagnostics-format", o.diagnostics_format, "How errors are printed: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--color", o.color, "Colour diagnostics: auto (default: when stderr is a terminal and NO_COLOR is unset), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

}  // namespace

// The end of a command: its output is complete (files are renamed into place by then; stdio is
// flushed here), so the process ends without running destructors. Nothing is lost, and a large
// model's compile does not spend its last milliseconds freeing the parse trees and IR it no
// longer needs, or wait for a parse-ahead of a file it never read (a compile that stopped at an
// error). Sanitizer builds return normally, so their leak and race checks still run at exit.
static int finish(int rc) {
#ifndef PYPTO_SANITIZED
  std::fflush(nullptr);
  std::_Exit(rc);
#endif
  return rc;
}

int main(int argc, char** argv) {
  CLI::App app{"pypto " PYPTO_VERSION
               " — compiler and build tool for the PyPTO tile DSL (no Python needed).\n"
               "Reads a PyPTO .py file, checks it, runs the pass pipeline and writes a buildable project\n"
               "(pto-isa kernels, PTO2 orchestration, kernel_config.py, build.ninja) that runs on the\n"
               "bundled CPU runtime or builds for an Ascend NPU.",
               "pypto"};
  app.set_version_flag("--version", std::string("pypto ") + PYPTO_VERSION);
  // Only the chosen subcommand's options are declared (declaring all of them costs a process start
  // about a millisecond); without one (pypto --help) every subcommand is declared in full.
  const std::string chosen = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
  auto wanted = [&](std::string_view name) { return chosen.empty() || chosen == name; };
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  pypto check model.py                      check syntax, names and types; writes nothing\n"
      "  pypto ir model.py --entry main            print the program's IR as DSL text\n"
      "  pypto ir model.py --passes ConvertToSSA   print the IR after the named passes\n"
      "  pypto diff a.py b.py                      structural equality of two programs\n"
      "  pypto passes -v                           the pass pipeline with each pass's contract\n"
      "  pypto ops --family tile                   the registered ops with pipe and pto-isa spelling\n"
      "  pypto build model.py -o out               generate and build out/ (then: out/bin/run --seed 1)\n"
      "  pypto test model.py                       build, run, and check every output against the interpreter\n"
      "  pypto memplan model.py -o plan.svg        each kernel's on-chip buffers: addresses against live ranges\n"
      "  pypto graph model.py -o graph.svg         the orchestration's task graph (Graphviz)\n"
      "Exit status: 0 ok, 1 errors in the program, 2 usage errors, 70 internal errors.");

  // check
  CommonOptions check_o;
  std::string check_file;
  auto* check = app.add_subcommand("check", "Front end + verifier: report errors, write nothing");
  if (wanted("check")) {
    check->add_option("FILE", check_file, "PyPTO source file")->required();
    add_common(check, check_o);
    check->add_option("--depfile", check_o.depfile, "Write a Make/Ninja depfile listing every source file read")
        ->type_name("FILE");
    check->footer(
        "Checks every entry of the file (or only --entry NAME) and reports each; a file without an entry\n"
        "(a module of DSL helpers and constants) is checked as a module.\n"
        "Example: pypto check model.py -D BATCH=8");
  }

  // ir
  IrOptions ir_o;
  auto* ir = app.add_subcommand("ir", "Print the program's IR (DSL text) to stdout");
  if (wanted("ir")) {
    ir->add_option("FILE", ir_o.file, "PyPTO source file")->required();
    add_common(ir, ir_o.common);
    add_auto_deps(ir, ir_o.common);
    ir->add_option("--passes", ir_o.passes,
                   "Run these passes first, in order (comma-separated names as `pypto passes` lists them, or the reference's snake_case spelling such as convert_to_ssa; 'all' = the whole pipeline)")
        ->delimiter(',')
        ->type_name("P1,P2,...");
    ir->add_option("--dump-passes", ir_o.dump_dir, "With --passes: also write the IR after each pass to DIR/NN_<pass>.py")
        ->type_name("DIR");
    ir->add_option("--soc", ir_o.soc, "Target SoC for memory planning: 910b (default) or 950")
        ->check(CLI::IsMember({"910b", "950"}, CLI::ignore_case));
    ir->footer("Examples:\n  pypto ir model.py\n  pypto ir model.py --passes all --soc 950");
  }

  // diff
  std::string diff_a, diff_b;
  CommonOptions diff_o;
  auto* diff = app.add_subcommand("diff", "Structural equality of two programs (exit 0 when equal, 1 when not)");
  if (wanted("diff")) {
    diff->add_option("A", diff_a, "First PyPTO file")->required();
    diff->add_option("B", diff_b, "Second PyPTO file")->required();
    add_common(diff, diff_o);
    diff->footer("Example: pypto diff before.py after.py   (names, spans and comments do not matter)");
  }

  // passes
  bool passes_verbose = false;
  auto* passes_cmd = app.add_subcommand("passes", "List the pass pipeline in execution order");
  if (wanted("passes")) {
    passes_cmd->add_flag("-v,--verbose", passes_verbose, "Also print what each pass does and its property contract");
  }

  // ops
  OpsOptions ops_o;
  auto* ops_cmd = app.add_subcommand("ops", "List the registered ops: signature, core, pipe, pto-isa / PTO2 spelling");
  if (wanted("ops")) {
    ops_cmd->add_option("NAME", ops_o.names, "Only these ops (e.g. tile.add or pl.tile.add)");
    ops_cmd->add_flag("--json", ops_o.json, "Print a JSON array (one object per op) instead of a table");
    ops_cmd->add_flag("--summary", ops_o.summary, "Print one markdown row per family: how many ops each back end carries");
    ops_cmd->add_option("--family", ops_o.family, "Only one family: tile, tensor, system, array, prefetch, pld");
    ops_cmd->footer("Examples:\n  pypto ops --family tile\n  pypto ops tile.row_sum --json");
  }

  // build
  BuildOptions b_o;
  auto* build = app.add_subcommand("build", "Compile to a project directory and build it with ninja");
  if (wanted("build")) {
    build->add_option("FILE", b_o.file, "PyPTO source file")->required();
    add_common(build, b_o.common);
    add_auto_deps(build, b_o.common);
    build->add_option("-o,--output", b_o.out_dir, "Output directory: new, empty or written by pypto before (then only changed files are rewritten); nothing is written outside it")
        ->required()
        ->type_name("OUT");
    build->add_option("--soc", b_o.soc, "Target SoC: 910b (default) or 950")->check(CLI::IsMember({"910b", "950"}, CLI::ignore_case));
    build->add_flag("--emit-only", b_o.emit_only, "Write the project but do not run ninja");
    build->add_option("-j", b_o.jobs, "Parallel jobs for ninja (passed on as -j N)")->check(CLI::PositiveNumber);
    build->add_option("--depfile", b_o.common.depfile,
                      "Write a Make/Ninja depfile (target OUT/build.ninja) listing every source file read; the one "
                      "file written outside OUT")
        ->type_name("FILE");
    build->add_flag("--dump-passes", b_o.dump_passes, "Also write the IR after each pass to OUT/passes_dump/NN_<pass>.py");
    build->add_flag("--report", b_o.report,
                    "Also write OUT/report.html: one self-contained page with the task graph, the memory plans, the "
                    "generated sources and each pass's IR with what it changed");
    build->add_flag("--time-report", b_o.time_report,
                    "Print to stderr the wall time of each phase (front end, every pass, emitters, writing OUT, "
                    "ninja) and the peak RSS; passes under 1 % of the total share one row");
    build->footer(
        "Example:\n  pypto build model.py -o out && out/bin/run --seed 1 --outputs out/results\n"
        "Environment: CXX picks the C++ compiler written into build.ninja (default c++);\n"
        "PYPTO_COMPILER_LAUNCHER (e.g. ccache) prefixes every compile command.");
  }

  // eval
  EvalOptions e_o;
  auto* eval = app.add_subcommand("eval", "Run the program on the reference interpreter (the oracle): .npy in, .npy out");
  if (wanted("eval")) {
    eval->add_option("FILE", e_o.file, "PyPTO source file")->required();
    add_common(eval, e_o.common);
    add_run_values(eval, e_o.run);
    eval->add_option("--inputs", e_o.inputs_dir, "Read <param>.npy for every In / InOut tensor parameter from DIR")
        ->type_name("DIR");
    eval->add_option("--outputs", e_o.outputs_dir, "Write every Out / InOut tensor parameter as DIR/<param>.npy")
        ->required()
        ->type_name("DIR");
    eval->add_option("--seed", e_o.seed,
                     "Generate missing inputs as bin/run --seed N does (the same values); they are written beside "
                     "the outputs")
        ->check(CLI::NonNegativeNumber);
    eval->add_option("--after", e_o.after,
                     "Interpret the IR after this pass of the pipeline instead of the front end's (bisects a wrong "
                     "result to a pass; see `pypto passes`)")
        ->type_name("PASS");
    eval->add_option("--soc", e_o.soc, "Target SoC for --after: 910b (default) or 950")->check(CLI::IsMember({"910b", "950"}, CLI::ignore_case));
    eval->footer("Example:\n  pypto eval model.py --seed 1 --outputs want/ && out/bin/run --seed 1 --outputs got/");
  }

  // test
  TestOptions t_o;
  auto* test = app.add_subcommand("test", "Build, run on seeded inputs, compare with the interpreter; name the pass that broke it");
  if (wanted("test")) {
    test->add_option("FILE", t_o.file, "PyPTO source file")->required();
    add_common(test, t_o.common);
    add_auto_deps(test, t_o.common);
    add_run_values(test, t_o.run);
    test->add_option("--soc", t_o.soc, "Target SoC: 910b (default) or 950")->check(CLI::IsMember({"910b", "950"}, CLI::ignore_case));
    test->add_option("--seed", t_o.seed, "Seed of the first trial's inputs (default 1)")->check(CLI::NonNegativeNumber);
    test->add_option("--inputs", t_o.inputs_dir,
                     "Use DIR/<param>.npy for the inputs it has (the same in every trial; e.g. a config tensor "
                     "whose values must make sense), drawing the others from the seed")
        ->type_name("DIR");
    test->add_option("--trials", t_o.trials, "Number of trials, seeds N, N+1, ... (default 1)")->check(CLI::PositiveNumber);
    test->add_option("--rtol", t_o.rtol, "Relative tolerance (default: FP32 1e-4, FP16 / BF16 1e-2, integers 0)")
        ->check(CLI::NonNegativeNumber);
    test->add_option("--atol", t_o.atol, "Absolute tolerance (default: FP32 1e-5, FP16 / BF16 1e-2, integers 0)")
        ->check(CLI::NonNegativeNumber);
    test->add_option("-o,--work-dir", t_o.work_dir,
                     "Keep the project (DIR/project) and each trial's inputs and outputs (DIR/seed_N) here (default: a "
                     "temporary directory, removed when the test passes)")
        ->type_name("DIR");
    test->add_flag("--keep", t_o.keep, "Keep the temporary directory even when the test passes");
    test->add_option("-j", t_o.jobs, "Parallel jobs for ninja")->check(CLI::PositiveNumber);
    test->add_flag("--every-pass", t_o.every_pass,
                   "Also interpret the IR after every pass on every trial: a pass whose IR disagrees with the source "
                   "program fails the test even when the final numbers agree");
    test->add_flag("--no-run", t_o.no_run,
                   "Only interpret: the source program against the IR after every pass, on the seeded inputs; no "
                   "project is built or run (fast: what the differential fuzzer runs on every program)");
    test->add_option("--inject-fault", t_o.inject_fault,
                     "For testing the bisection: after PASS, turn the program's first add into a subtract (the test "
                     "then fails and names PASS)")
        ->type_name("PASS");
    test->footer("Example:\n  pypto test model.py --trials 3\nExit status: 0 every output agrees, 1 a mismatch (or an error in the program).");
  }

  // graph
  GraphOptions g_o;
  auto* graph = app.add_subcommand("graph", "Draw the orchestration's task graph: kernels, tensors, dependencies");
  if (wanted("graph")) {
    graph->add_option("FILE", g_o.file, "PyPTO source file")->required();
    add_common(graph, g_o.common);
    graph->add_option("-o,--output", g_o.output,
                      "Write the graph to FILE: .dot (DOT text), .svg or .html (drawn by Graphviz's dot, Debian "
                      "graphviz); default: DOT text on stdout")
        ->type_name("FILE");
    graph->add_option("--soc", g_o.soc, "Target SoC: 910b (default) or 950")
        ->check(CLI::IsMember({"910b", "950"}, CLI::ignore_case));
    graph->footer(
        "After the whole pass pipeline: one box per kernel call (loops folded into a frame with their trip count,\n"
        "branches in dashed frames), the entry's tensors and those it creates, grey data arrows, and dependency\n"
        "arrows named RAW / WAR / WAW with the tensor (dashed red: into the next loop iteration), at whole-tensor\n"
        "granularity.\nExamples:\n  pypto graph model.py | dot -Tpng > graph.png\n  pypto graph model.py -o graph.svg");
  }

  // memplan
  MemplanOptions m_o;
  auto* memplan = app.add_subcommand("memplan", "Show each kernel's on-chip memory plan: tile addresses against live ranges");
  if (wanted("memplan")) {
    memplan->add_option("FILE", m_o.file, "PyPTO source file")->required();
    add_common(memplan, m_o.common);
    memplan->add_option("-o,--output", m_o.output,
                        "Write the plan to FILE: .svg (a picture per kernel and memory space) or .json (the same "
                        "data); default: a table on stdout")
        ->type_name("FILE");
    memplan->add_option("--soc", m_o.soc, "Target SoC (its capacities): 910b (default) or 950")
        ->check(CLI::IsMember({"910b", "950"}, CLI::ignore_case));
    memplan->footer(
        "After the whole pass pipeline (MemoryReuse, AllocateMemoryAddr): every tile's byte range in its memory\n"
        "space (Vec, Mat, Left, Right, Acc, Bias) against the statements it is live for, and how close each\n"
        "space comes to its capacity.\nExamples:\n  pypto memplan model.py\n  pypto memplan model.py -o plan.svg");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsageError;
  }

  // The compiling commands tune the heap for a short run of small allocations; eval and test keep
  // glibc's defaults and the standard allocation (the interpreter's arrays are large and freed as
  // it goes, and its threads come and go).
  if (!eval->parsed() && !test->parsed()) {
    use_small_alloc_for_tree_sitter();
    prefault_heap();
    pypto::parser::set_parse_thread_init(advise_thread_heap);
  } else {
    small_alloc_off();
  }
  const int rc = [&] {
    if (check->parsed()) return cmd_check(check_file, check_o);
    if (ir->parsed()) return cmd_ir(ir_o);
    if (diff->parsed()) return cmd_diff(diff_a, diff_b, diff_o);
    if (build->parsed()) return cmd_build(b_o);
    if (memplan->parsed()) return cmd_memplan(m_o);
    if (graph->parsed()) return cmd_graph(g_o);
    if (passes_cmd->parsed()) return cmd_passes(passes_verbose);
    if (ops_cmd->parsed()) return cmd_ops(ops_o);
    if (eval->parsed()) return cmd_eval(e_o);
    if (test->parsed()) return cmd_test(t_o);
    return int(kUsageError);
  }();
  return finish(rc);
}

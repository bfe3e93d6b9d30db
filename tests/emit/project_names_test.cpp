// File names derived from user identifiers (emit/file_names.h) on hostile names: `name_hint=`
// values with "..", "/", spaces, quotes, `$`, `:`, 300 characters, C++ keywords and runtime
// symbols, names that collide after sanitising or differ only in case. Every generated path stays
// inside OUT, the same stem / symbol is used in every file that names it, build.ninja is escaped,
// and projects are byte-identical whatever OUT is (except compile_commands.json).
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <set>

#include "emit/file_names.h"
#include "emit_test_util.h"
#include "ir/visitor.h"

using namespace emit_test;
using namespace pypto;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kHostile = {"../../../escaped", "a b", "/etc/passwd", "int", "Int", "class", "kernel_entry",
                                           "main", std::string(300, 'x'), "q\"\\z:$ \xc3\xa9", "a_b_10a3f9f2"};

// One orchestration chaining a kernel per hostile name_hint (then "last" writing `out`). The front
// end only admits identifiers as name_hint= (as the reference does), so the program names its
// scopes hostile_<i> and compile_hostile() puts the hostile names on the IR before the pipeline.
std::string hostile_program() {
  std::string body, prev = "x";
  for (size_t i = 0; i < kHostile.size(); ++i) {
    body += "        with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"hostile_" + std::to_string(i) + "\"):\n            t" +
            std::to_string(i) + " = pl.add(" + prev + ", 1.0)\n";
    prev = "t" + std::to_string(i);
  }
  return "import pypto.language as pl\n\n@pl.program\nclass Hostile:\n"
         "    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> "
         "pl.Tensor[[32, 64], pl.FP32]:\n" +
         body + "        with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"last\"):\n            out = pl.mul(" + prev +
         ", 2.0)\n        return out\n";
}

class SetHostileHints : public pypto::ir::IRMutator {
 protected:
  pypto::ir::StmtPtr mutate_scope(const std::shared_ptr<const pypto::ir::ScopeStmt>& s) override {
    auto n = std::make_shared<pypto::ir::ScopeStmt>(*as_scope(pypto::ir::IRMutator::mutate_scope(s)));
    if (n->name_hint.rfind("hostile_", 0) == 0) n->name_hint = kHostile.at(std::stoul(n->name_hint.substr(8)));
    return n;
  }
  static const pypto::ir::ScopeStmt* as_scope(const pypto::ir::StmtPtr& s) { return pypto::ir::as<pypto::ir::ScopeStmt>(s); }
};

pypto::ir::ProgramPtr compile_hostile() {
  pypto::ir::DiagnosticSink sink;
  auto p = pypto::parser::parse_source(std::make_shared<pypto::ir::SourceFile>("hostile.py", hostile_program()), {}, sink);
  p = SetHostileHints().mutate_program(p);
  pypto::passes::PassContext ctx;
  return pypto::passes::run_pipeline(p, ctx);
}

bool plain_path(const std::string& p) {
  if (p.empty() || p[0] == '/' || p.find("..") != std::string::npos) return false;
  for (char c : p)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == '.')) return false;
  return true;
}

std::vector<std::string> matches(const std::string& text, const std::string& re) {
  std::vector<std::string> out;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), r); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str());
  return out;
}

}  // namespace

TEST_CASE("file stems: plain names verbatim, others sanitised, bounded and hashed", "[emit][names]") {
  CHECK(emit::fnv1a_hex("") == "811c9dc5");  // FNV-1a test vectors
  CHECK(emit::fnv1a_hex("a") == "e40c292c");
  CHECK(emit::fnv1a_hex("foobar") == "bf9cf968");
  for (const char* n : {"softmax", "int", "main", "kernel_entry", "TADD", "x__ssa_v0", "9lives"}) CHECK(emit::file_stem(n) == n);
  CHECK(emit::file_stem("../../../escaped") == "_________escaped_" + emit::fnv1a_hex("../../../escaped"));
  CHECK(emit::file_stem("a b") == "a_b_" + emit::fnv1a_hex("a b"));
  CHECK(emit::file_stem("") == "f_811c9dc5");
  const std::string longname(300, 'x');
  CHECK(emit::file_stem(longname).size() == emit::kMaxStem);
  CHECK(emit::file_stem(longname) != emit::file_stem(longname + "y"));
  CHECK(emit::file_stem(std::string(64, 'y')) == std::string(64, 'y'));
  CHECK(emit::file_stem(std::string(65, 'y')).size() == emit::kMaxStem);
  CHECK(emit::string_literal_body("q\"\\z\n\x01") == "q\\\"\\\\z\\012\\001");
  CHECK(emit::ninja_escape_path("a b:$c") == "a$ b$:$$c");
  CHECK(emit::shell_word("/plain/path-1.0") == "/plain/path-1.0");
  CHECK(emit::shell_word("it's here") == "'it'\\''s here'");
}

TEST_CASE("hostile kernel names give safe, unique, consistent file names and symbols", "[emit][names]") {
  auto p = compile_hostile();
  const emit::ProjectNames names(*p);
  std::set<std::string> stems_lower;
  for (const auto& f : p->functions) {
    const std::string& s = names.stem(*f);
    INFO(f->name << " -> " << s);
    CHECK(s.size() <= emit::kMaxStem);
    CHECK(std::regex_match(s, std::regex("[A-Za-z0-9_]+")));
    std::string low = s;
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(stems_lower.insert(low).second);  // unique, also on a case-insensitive file system
    if (f->name == "class" || f->name == "kernel_entry" || f->name == "a_b_10a3f9f2" || f->name == "last")
      CHECK(s == f->name);  // names that are their own stem keep it
  }

  const auto files = emit::render_project(*p, emit::EmitOptions{}, std::string(PYPTO_TEST_WORK_DIR) + "/hostile");
  std::set<std::string> kernel_files;
  for (const auto& [rel, text] : files) {
    INFO(rel);
    CHECK(plain_path(rel));
    if (rel.rfind("kernels/aiv/", 0) == 0) kernel_files.insert(rel);
  }
  CHECK(kernel_files.size() == kHostile.size() + 1);
  // build.ninja compiles exactly those files, with the program table's symbols.
  const std::string& ninja = files.at("build.ninja");
  const auto srcs = matches(ninja, "build obj/kernels/aiv/[A-Za-z0-9_]+\\.o: aiv (kernels/aiv/[A-Za-z0-9_]+\\.cpp)( \\| [^\n]+)?\n");
  CHECK(std::set<std::string>(srcs.begin(), srcs.end()) == kernel_files);
  const auto entries = matches(ninja, "\n  entry = ([^\n]+)\n");
  const std::string& table = files.at("runner/program_table.cpp");
  const auto declared = matches(table, "extern \"C\" void ([A-Za-z0-9_]+)\\(int64_t\\* args\\);");
  CHECK(std::set<std::string>(entries.begin(), entries.end()) == std::set<std::string>(declared.begin(), declared.end()));
  CHECK(entries.size() == kernel_files.size());
  for (const auto& e : entries) CHECK(std::regex_match(e, std::regex("pypto_kernel_[A-Za-z0-9_]+")));
  // kernel_config.py names each source that exists and spells each kernel's name as a literal.
  const std::string& config = files.at("kernel_config.py");
  const auto sources = matches(config, "str\\(_ROOT_DIR / \"kernels\" / \"aiv\" / \"([A-Za-z0-9_]+)\\.cpp\"\\)");
  std::set<std::string> config_files;
  for (const auto& s : sources) config_files.insert("kernels/aiv/" + s + ".cpp");
  CHECK(config_files == kernel_files);
  CHECK(config.find("\"name\": \"q\\\"\\\\z:$ \xc3\xa9\"") != std::string::npos);
  CHECK(table.find("\"q\\\"\\\\z:$ \xc3\xa9\", CoreType::AIV") != std::string::npos);
  CHECK(config.find("\"name\": \"../../../escaped\"") != std::string::npos);
  // The keyword / runtime-symbol names keep their files; their C++ spellings stay valid.
  CHECK(files.count("kernels/aiv/class.cpp") == 1);
  CHECK(files.count("kernels/aiv/kernel_entry.cpp") == 1);
  CHECK(files.at("kernels/aiv/class.cpp").find("static __aicore__ void class_v(") != std::string::npos);
  CHECK(std::regex_search(ninja, std::regex("build obj/kernels/aiv/class\\.o: aiv kernels/aiv/class\\.cpp( \\| [^\n]+)?\n  entry = pypto_kernel_class\n")));
  // "int" and "Int" differ only in case: one keeps its name, the other gets the hash.
  CHECK(files.count("kernels/aiv/int.cpp") + files.count("kernels/aiv/Int.cpp") == 1);
  CHECK(files.count("kernels/aiv/int_" + emit::fnv1a_hex("int") + ".cpp") + files.count("kernels/aiv/Int_" + emit::fnv1a_hex("Int") + ".cpp") == 1);
  // "a b" sanitises to a name the program already has: it moves on to _2.
  CHECK(files.count("kernels/aiv/a_b_10a3f9f2.cpp") == 1);
  CHECK(files.count("kernels/aiv/a_b_10a3f9f2_2.cpp") == 1);

  // Written to disk: nothing lands outside OUT.
  const fs::path root = fs::path(PYPTO_TEST_WORK_DIR) / "hostile_root";
  fs::remove_all(root);
  fs::create_directories(root / "a/b/c");
  emit::write_project(*p, emit::EmitOptions{}, (root / "a/b/c/p").string());
  size_t outside = 0;
  for (const auto& e : fs::recursive_directory_iterator(root))
    outside += e.is_regular_file() && e.path().string().find("/a/b/c/p/") == std::string::npos;
  CHECK(outside == 0);
  const std::string escaped = "_________escaped_" + emit::fnv1a_hex("../../../escaped") + ".cpp";
  CHECK(fs::exists(root / "a/b/c/p/kernels/aiv" / escaped));
}

TEST_CASE("projects are byte-identical whatever OUT is, except compile_commands.json", "[emit][names]") {
  auto p = compile_program("e2e_tensor_level.py");
  auto a = emit::render_project(*p, emit::EmitOptions{}, "/tmp/x/p");
  auto b = emit::render_project(*p, emit::EmitOptions{}, "relative/../other dir/q");
  REQUIRE(a.size() == b.size());
  CHECK(a.at("compile_commands.json") != b.at("compile_commands.json"));
  a.erase("compile_commands.json");
  b.erase("compile_commands.json");
  CHECK(a == b);
  for (const auto& [rel, text] : a) {
    INFO(rel);
    CHECK(text.find("/tmp/x") == std::string::npos);
  }
}

TEST_CASE("build.ninja escapes a runtime path with spaces, colons and dollars", "[emit][names]") {
  const fs::path rt = fs::path(PYPTO_TEST_WORK_DIR) / "rt dir:$x";
  fs::remove_all(rt);
  fs::create_directories(rt / "include/pypto_rt");
  fs::create_directories(rt / "src");
  std::ofstream(rt / "include/pypto_rt/program.h") << "// stub\n";
  std::ofstream(rt / "src/main.cpp") << "// stub\n";
  emit::EmitOptions o;
  o.runtime_dir = rt.string();
  auto p = compile_program("e2e_softmax.py");
  const auto files = emit::render_project(*p, o, (fs::path(PYPTO_TEST_WORK_DIR) / "esc").string());
  const std::string& n = files.at("build.ninja");
  INFO(n);
  CHECK(n.find("\nruntime = " + std::string(PYPTO_TEST_WORK_DIR) + "/rt dir:$$x\n") != std::string::npos);
  CHECK(n.find("-I'" + std::string(PYPTO_TEST_WORK_DIR) + "/rt dir:$$x/include'\n") != std::string::npos);
  CHECK(n.find("$runtime/src/") == std::string::npos);  // the runtime is linked prebuilt, not compiled here
  const std::string& cc = files.at("compile_commands.json");
  CHECK(cc.find("-I'" + rt.string() + "/include'") != std::string::npos);
}

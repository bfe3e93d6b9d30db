// emit::write_files_atomically / output_dir_refusal in-process: which directories may be written
// (new, empty, marked by pypto) and which are refused (a user's, the working directory, one
// holding the input, files, dangling links, through symbolic links); incremental regeneration
// (unchanged files keep their mtimes, build outputs and user files survive, stale generated files
// go); failures leave the previous contents intact; a tampered marker deletes nothing outside.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "emit/dir_writer.h"
#include "ir/diagnostic.h"

using namespace pypto;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const std::string& name) {
  const fs::path p = fs::path(PYPTO_TEST_WORK_DIR) / name;
  fs::remove_all(p);
  fs::create_directories(p.parent_path());
  return p;
}

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string get(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every entry under `dir` (files and links, relative), with contents.
std::map<std::string, std::string> listing(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    out[fs::relative(e.path(), dir).string()] = e.is_regular_file() ? get(e.path()) : std::string("<dir>");
  return out;
}

std::string error_code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ir::CompileError& e) {
    return e.diagnostics().at(0).code + ": " + e.diagnostics().at(0).message;
  }
  return "no error";
}

const std::map<std::string, std::string> kV1 = {{"a.txt", "A"}, {"sub/b.txt", "B"}, {"sub/deep/c.txt", "C"}};

}  // namespace

TEST_CASE("a new directory is written whole, with a marker listing the generated files", "[emit][writer]") {
  const fs::path out = fresh("new/p");
  emit::write_files_atomically(kV1, out.string());
  CHECK(get(out / "a.txt") == "A");
  CHECK(get(out / "sub/deep/c.txt") == "C");
  const std::string marker = get(out / emit::kProjectMarker);
  CHECK(marker.rfind("# Written by pypto", 0) == 0);
  CHECK(marker.find("\na.txt\nsub/b.txt\nsub/deep/c.txt\n") != std::string::npos);
  for (const auto& e : fs::directory_iterator(out.parent_path()))
    CHECK(e.path().filename().string().find("pypto-tmp") == std::string::npos);
}

TEST_CASE("directories pypto did not write are refused and left as they were", "[emit][writer]") {
  const fs::path user = fresh("user");
  put(user / "model.py", "source");
  put(user / "notes.txt", "notes");
  const auto before = listing(user);
  const std::string err = error_code_of([&] { emit::write_files_atomically(kV1, user.string()); });
  CHECK(err.rfind("E904: refusing to replace '" + user.string() + "'", 0) == 0);
  CHECK(err.find("not written by pypto") != std::string::npos);
  CHECK(listing(user) == before);

  // A file, a dangling link, the input's directory (also through a link), the working directory.
  CHECK(emit::output_dir_refusal((user / "notes.txt").string()).find("is not a directory") != std::string::npos);
  const fs::path dangling = fresh("dangling");
  fs::create_symlink(fs::path(PYPTO_TEST_WORK_DIR) / "nowhere", dangling);
  CHECK(emit::output_dir_refusal(dangling.string()).find("dangling symbolic link") != std::string::npos);
  const fs::path empty = fresh("empty_with_input");
  put(empty / "sub/model.py", "source");  // OUT would contain the input
  const std::string input = (empty / "sub/model.py").string();
  CHECK(emit::output_dir_refusal(empty.string(), {input}).find("contains the input file") != std::string::npos);
  CHECK(emit::output_dir_refusal(input, {input}).find("is the input file") != std::string::npos);
  const fs::path link = fresh("link_to_input_dir");
  fs::create_directory_symlink(empty, link);
  const std::string via_link = emit::output_dir_refusal(link.string(), {input});
  CHECK(via_link.find("(= '" + fs::canonical(empty).string() + "')") != std::string::npos);
  CHECK(via_link.find("contains the input file") != std::string::npos);
  CHECK_THROWS_AS(emit::write_files_atomically(kV1, link.string(), {input}), ir::CompileError);
  CHECK_FALSE(fs::exists(empty / "a.txt"));
  const fs::path cwd = fs::current_path();
  CHECK(emit::output_dir_refusal(cwd.string()).find("is the working directory") != std::string::npos);
  CHECK(emit::output_dir_refusal(".").find("is the working directory") != std::string::npos);
  CHECK(emit::output_dir_refusal(cwd.parent_path().string()).find("contains the working directory") != std::string::npos);
  const fs::path cwd_link = fresh("link_to_cwd");
  fs::create_directory_symlink(cwd, cwd_link);
  CHECK(emit::output_dir_refusal(cwd_link.string()).find("is the working directory") != std::string::npos);

  // Empty directories and new ones are fine.
  const fs::path e2 = fresh("empty");
  fs::create_directories(e2);
  CHECK(emit::output_dir_refusal(e2.string()).empty());
  emit::write_files_atomically(kV1, e2.string());
  CHECK(get(e2 / "sub/b.txt") == "B");
}

TEST_CASE("regeneration rewrites only what changed and removes only stale generated files", "[emit][writer]") {
  const fs::path out = fresh("incremental");
  emit::write_files_atomically(kV1, out.string());
  put(out / "obj/a.o", "object");
  put(out / ".ninja_log", "log");
  put(out / "sub/deep/user.txt", "user's");
  const auto old_time = fs::last_write_time(out / "a.txt") - std::chrono::hours(1);
  fs::last_write_time(out / "a.txt", old_time);
  fs::last_write_time(out / "sub/b.txt", old_time);
  const auto marker_time = fs::last_write_time(out / emit::kProjectMarker) - std::chrono::hours(1);
  fs::last_write_time(out / emit::kProjectMarker, marker_time);

  // Same files, one changed: only that one is rewritten; the marker is unchanged too.
  auto v2 = kV1;
  v2["sub/b.txt"] = "B2";
  emit::write_files_atomically(v2, out.string());
  CHECK(fs::last_write_time(out / "a.txt") == old_time);
  CHECK(fs::last_write_time(out / "sub/b.txt") != old_time);
  CHECK(get(out / "sub/b.txt") == "B2");
  CHECK(fs::last_write_time(out / emit::kProjectMarker) == marker_time);

  // A generation without sub/deep/c.txt and sub/b.txt, with a new file: the stale ones go, their
  // directory stays while the user's file is in it; build outputs and user files survive.
  const std::map<std::string, std::string> v3 = {{"a.txt", "A"}, {"new/d.txt", "D"}};
  emit::write_files_atomically(v3, out.string());
  const auto now = listing(out);
  CHECK_FALSE(now.count("sub/deep/c.txt"));
  CHECK_FALSE(now.count("sub/b.txt"));
  CHECK(now.at("sub/deep/user.txt") == "user's");
  CHECK(now.at("obj/a.o") == "object");
  CHECK(now.at(".ninja_log") == "log");
  CHECK(now.at("new/d.txt") == "D");
  CHECK(fs::last_write_time(out / "a.txt") == old_time);
  CHECK(get(out / emit::kProjectMarker).find("\na.txt\nnew/d.txt\n") != std::string::npos);
  CHECK(get(out / emit::kProjectMarker).find("sub/") == std::string::npos);
  fs::remove(out / "sub/deep/user.txt");
  emit::write_files_atomically({{"a.txt", "A"}}, out.string());
  CHECK_FALSE(fs::exists(out / "new"));  // emptied by removing new/d.txt
  for (const auto& [rel, text] : listing(out)) CHECK(rel.find("pypto-tmp") == std::string::npos);
}

TEST_CASE("a failed write leaves the previous contents; nothing is written or deleted outside", "[emit][writer]") {
  const fs::path out = fresh("failing");
  emit::write_files_atomically(kV1, out.string());
  // A directory where a generated file must go: nothing is renamed into place.
  fs::remove(out / "a.txt");
  fs::create_directories(out / "a.txt/inner");
  const auto before = listing(out);
  auto v2 = kV1;
  v2["sub/b.txt"] = "B2";
  v2["a.txt"] = "A2";
  CHECK(error_code_of([&] { emit::write_files_atomically(v2, out.string()); }).rfind("E902: ", 0) == 0);
  CHECK(listing(out) == before);

  // A symbolic link inside OUT is not written through.
  const fs::path outside = fresh("outside");
  fs::create_directories(outside);
  fs::remove_all(out / "a.txt");
  fs::create_directory_symlink(outside, out / "linked");
  CHECK(error_code_of([&] { emit::write_files_atomically({{"linked/x.txt", "X"}}, out.string()); })
            .find("is a symbolic link") != std::string::npos);
  CHECK(fs::is_empty(outside));

  // Generated names that would climb out are a bug, caught before anything is written.
  CHECK_THROWS_AS(emit::write_files_atomically({{"../escaped.txt", "X"}}, out.string()), ir::InternalError);
  CHECK_THROWS_AS(emit::write_files_atomically({{"/tmp/abs.txt", "X"}}, out.string()), ir::InternalError);
  CHECK_FALSE(fs::exists(out.parent_path() / "escaped.txt"));

  // A tampered marker naming files outside OUT (or through the link) deletes none of them.
  put(outside / "victim.txt", "keep");
  put(out.parent_path() / "victim2.txt", "keep");
  put(out / emit::kProjectMarker, "# Written by pypto\n../victim2.txt\n" + (outside / "victim.txt").string() +
                                      "\nlinked/victim.txt\nsub/b.txt\n");
  emit::write_files_atomically({{"a.txt", "A"}}, out.string());
  CHECK(get(outside / "victim.txt") == "keep");
  CHECK(get(out.parent_path() / "victim2.txt") == "keep");
  CHECK_FALSE(fs::exists(out / "sub/b.txt"));  // listed and inside: generated, stale, removed
}

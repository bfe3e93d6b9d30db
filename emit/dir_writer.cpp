// Safe, incremental directory writer with a marker of generated files (dir_writer.h).
#include "emit/dir_writer.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "ir/diagnostic.h"

namespace fs = std::filesystem;

namespace pypto::emit {

using ir::CompileError;

namespace {

constexpr const char* kMarkerHeader =
    "# Written by pypto: a generated directory that pypto may regenerate in place. The files\n"
    "# below are the ones it generated (rewritten or removed on regeneration); nothing else here\n"
    "# is touched. Delete this file to keep pypto from writing into this directory.\n";

fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) a = p;
  fs::path c = fs::weakly_canonical(a, ec);
  if (ec) c = a.lexically_normal();
  std::string s = c.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// `inner` is `outer` or lies below it (both resolved).
bool within(const fs::path& inner, const fs::path& outer) {
  const fs::path rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

// A relative path that stays inside its directory: no root, no "." / ".." / empty components.
bool safe_relative(const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || rel.back() == '/') return false;
  for (const auto& part : fs::path(rel)) {
    const std::string s = part.string();
    if (s.empty() || s == "." || s == ".." || s.find('\n') != std::string::npos) return false;
  }
  return true;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw CompileError("E902", {}, fmt::format("cannot write '{}'", p.string()), "check the output directory");
}

std::string marker_text(const std::set<std::string>& files) {
  std::string t = kMarkerHeader;
  for (const auto& f : files) t += f + "\n";
  return t;
}

// The generated files an existing marker lists (only safe relative paths are believed).
std::set<std::string> marker_files(const fs::path& out) {
  std::set<std::string> files;
  std::istringstream in(read_all(out / kProjectMarker));
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#' && safe_relative(l) && l != kProjectMarker) files.insert(l);
  return files;
}

// Creates out/rel_dir, refusing to follow a symbolic link or to replace a non-directory.
void make_dirs_inside(const fs::path& out, const fs::path& rel_dir) {
  fs::path cur = out;
  for (const auto& part : rel_dir) {
    cur /= part;
    const auto st = fs::symlink_status(cur);
    if (fs::is_symlink(st))
      throw CompileError("E902", {}, fmt::format("'{}' is a symbolic link; pypto does not write through it", cur.string()),
                         "remove the link (or choose another output directory)");
    if (!fs::exists(st)) {
      fs::create_directory(cur);
    } else if (!fs::is_directory(st)) {
      throw CompileError("E902", {}, fmt::format("'{}' is in the way: a directory is needed there", cur.string()),
                         "remove it (or choose another output directory)");
    }
  }
}

// Writes `text` to `final` through a temporary file next to it, renamed into place.
void replace_file(const fs::path& final, const std::string& text) {
  const fs::path tmp = final.parent_path() / fmt::format(".{}.pypto-tmp-{}", final.filename().string(), ::getpid());
  try {
    write_file(tmp, text);
    fs::rename(tmp, final);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

// A new directory: assembled next to it and renamed into place in one step.
void write_new_dir(const std::map<std::string, std::string>& files, const std::string& marker, const fs::path& out) {
  const fs::path parent = out.parent_path();
  const fs::path tmp = parent / fmt::format(".{}.pypto-tmp-{}", out.filename().string(), ::getpid());
  std::error_code ec;
  fs::create_directories(parent);
  fs::remove_all(tmp, ec);
  try {
    fs::create_directory(tmp);
    for (const auto& [rel, text] : files) {
      fs::create_directories((tmp / rel).parent_path());
      write_file(tmp / rel, text);
    }
    write_file(tmp / kProjectMarker, marker);
    fs::rename(tmp, out);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

// An existing (empty or pypto-written) directory: rewrite what changed, drop what is stale.
void update_dir(const std::map<std::string, std::string>& files, const std::set<std::string>& now, const fs::path& out) {
  const std::set<std::string> before = marker_files(out);
  std::vector<std::pair<fs::path, fs::path>> staged;  // temp → final
  auto drop_staged = [&] {
    std::error_code ec;
    for (const auto& [tmp, final] : staged) fs::remove(tmp, ec);
  };
  try {
    for (const auto& [rel, text] : files) {
      const fs::path final = out / rel;
      const auto st = fs::symlink_status(final);
      if (fs::exists(st) && !fs::is_regular_file(st) && !fs::is_symlink(st))
        throw CompileError("E902", {}, fmt::format("'{}' is in the way: pypto generates a file there", final.string()),
                           "remove it (or choose another output directory)");
      if (fs::is_regular_file(st) && read_all(final) == text) continue;  // unchanged: keep its mtime
      make_dirs_inside(out, fs::path(rel).parent_path());
      const fs::path tmp = final.parent_path() / fmt::format(".{}.pypto-tmp-{}", final.filename().string(), ::getpid());
      staged.emplace_back(tmp, final);
      write_file(tmp, text);
    }
    // The marker lists old and new files while both may exist, so a crash never orphans one.
    std::set<std::string> both = before;
    both.insert(now.begin(), now.end());
    const fs::path marker = out / kProjectMarker;
    if (!fs::exists(fs::symlink_status(marker)) || read_all(marker) != marker_text(both))
      replace_file(marker, marker_text(both));
    for (const auto& [tmp, final] : staged) fs::rename(tmp, final);
  } catch (...) {
    drop_staged();
    throw;
  }
  // Stale generated files (and the directories they leave empty) go; nothing else does.
  std::error_code ec;
  for (const auto& rel : before) {
    if (now.count(rel)) continue;
    fs::path p = out / rel;
    if (!within(resolved(p.parent_path()), out)) continue;  // a link inside OUT: not ours to follow
    const auto st = fs::symlink_status(p, ec);
    if (fs::is_regular_file(st) || fs::is_symlink(st)) fs::remove(p, ec);
    for (p = p.parent_path(); p != out && within(p, out); p = p.parent_path())
      if (!fs::is_directory(fs::symlink_status(p, ec)) || !fs::is_empty(p, ec) || !fs::remove(p, ec)) break;
  }
  if (before != now) replace_file(out / kProjectMarker, marker_text(now));
}

}  // namespace

std::string output_dir_refusal(const std::string& dir, const std::vector<std::string>& protect) {
  if (dir.empty()) return "the output directory is empty ('')";
  const fs::path out = resolved(dir);
  std::error_code ec;
  std::string plain = fs::absolute(dir, ec).lexically_normal().string();
  while (plain.size() > 1 && plain.back() == '/') plain.pop_back();
  // Name OUT as the user wrote it, and where it really is when links make that different.
  const std::string shown = out.string() == plain ? fmt::format("'{}'", dir) : fmt::format("'{}' (= '{}')", dir, out.string());
  const auto lst = fs::symlink_status(fs::absolute(dir, ec), ec);
  if (fs::is_symlink(lst) && !fs::exists(fs::status(fs::absolute(dir, ec), ec)))
    return fmt::format("refusing to write {}: it is a dangling symbolic link", shown);
  const fs::path cwd = resolved(fs::current_path(ec));
  if (!ec && within(cwd, out))
    return fmt::format("refusing to write {}: it {} the working directory; choose a new directory for the output",
                       shown, out == cwd ? "is" : "contains");
  for (const auto& p : protect) {
    const fs::path in = resolved(p);
    if (within(in, out))
      return fmt::format("refusing to write {}: it {} the input file '{}'; choose a new directory for the output",
                         shown, out == in ? "is" : "contains", p);
  }
  const auto st = fs::status(out, ec);
  if (!fs::exists(st)) return {};
  if (!fs::is_directory(st)) return fmt::format("refusing to write {}: it exists and is not a directory", shown);
  if (fs::is_empty(out, ec) || fs::is_regular_file(fs::symlink_status(out / kProjectMarker, ec))) return {};
  return fmt::format(
      "refusing to replace {}: it is not empty and was not written by pypto (it has no {} file); "
      "choose a new or empty directory, or remove it yourself",
      shown, kProjectMarker);
}

void write_files_atomically(const std::map<std::string, std::string>& files, const std::string& dir,
                            const std::vector<std::string>& protect) {
  if (auto why = output_dir_refusal(dir, protect); !why.empty())
    throw CompileError("E904", {}, why, "pypto only replaces directories it wrote (they hold a .pypto-project file)");
  std::set<std::string> now;
  for (const auto& [rel, text] : files) {
    if (!safe_relative(rel) || rel == kProjectMarker)
      throw ir::InternalError("emit", fmt::format("generated file name '{}' would leave the output directory", rel));
    now.insert(rel);
  }
  const fs::path out = resolved(dir);
  try {
    if (!fs::exists(out))
      write_new_dir(files, marker_text(now), out);
    else
      update_dir(files, now, out);
  } catch (const fs::filesystem_error& e) {
    throw CompileError("E902", {}, fmt::format("cannot write '{}': {}", out.string(), e.what()),
                       "check that the output directory is writable");
  }
}

}  // namespace pypto::emit

// Reads one lesson's file of the compiled-code table (scripts/sass_table.py
// writes it: tab-separated records, one a line) and checks the sources it was
// made from against the build's (engine/compiled/compiled_table.hpp). Any
// problem turns the lesson's compiled view off with a message; it never
// stops the program, so that a developer without nvdisasm who edits one
// lesson loses that lesson's compiled counts only.
#include <algorithm>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "engine/compiled/compiled_table.hpp"

namespace ts::compiled {
namespace {

constexpr std::string_view kRemake = "run scripts/sass_table.sh (needs nvcc and nvdisasm)";

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t at = 0;;) {
    const size_t end = s.find(sep, at);
    out.push_back(s.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return out;
    at = end + 1;
  }
}

template <class T>
bool number(std::string_view s, T& out, int base = 10) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// The format's names of the spaces and operations.
template <class T, size_t N>
bool named(std::string_view s, const std::pair<std::string_view, T> (&names)[N], T& out) {
  for (const auto& [name, value] : names)
    if (s == name) {
      out = value;
      return true;
    }
  return false;
}
constexpr std::pair<std::string_view, Space> kSpaces[] = {
    {"global", Space::Global}, {"shared", Space::Shared}, {"constant", Space::Constant}};
constexpr std::pair<std::string_view, SassOp> kOps[] = {{"load", SassOp::Load},
                                                        {"store", SassOp::Store},
                                                        {"atomic", SassOp::Atomic},
                                                        {"reduce", SassOp::Reduce}};

// One instruction record; false if a field is not what the format says.
// Several offsets ("0630,0640") are copies of one instruction in a row.
bool read_instructions(const std::vector<std::string_view>& f, std::vector<CompiledAccess>& out) {
  CompiledAccess a;
  a.file = f[2];
  a.opcode = f[7];
  unsigned bytes = 0, barriers = 0;
  if (!number(f[1], a.line) || a.line == 0 || a.file.empty() || !named(f[3], kSpaces, a.space) ||
      !named(f[4], kOps, a.op) || !number(f[5], bytes) || (f[6] != "p" && f[6] != "-") ||
      a.opcode.empty() || !number(f[8], barriers) || barriers > 255)
    return false;
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) return false;
  a.bytes = uint8_t(bytes);
  a.barriers = uint8_t(barriers);
  a.predicated = f[6] == "p";
  for (const std::string_view offset : split(f[0], ',')) {
    if (!number(offset, a.offset, 16)) return false;
    out.push_back(a);
  }
  return true;
}

// "lessons/scan_kit.hpp changed", "lessons/old.hpp and 2 more changed": the
// files whose hash differs from the one built, named for the developer.
std::string changed_files(const std::vector<std::string_view>& changed) {
  std::string s(changed[0]);
  if (changed.size() == 2) s += " and " + std::string(changed[1]);
  if (changed.size() > 2) s += " and " + std::to_string(changed.size() - 1) + " more";
  return s;
}

std::string nvcc_short(std::string_view release) {  // "13.0.88" -> "13.0"
  const size_t second = release.find('.', release.find('.') + 1);
  return std::string(release.substr(0, second));
}

}  // namespace

const CompiledFile* find_file(std::span<const CompiledFile> files, std::string_view name) {
  for (const CompiledFile& f : files)
    if (f.name == name) return &f;
  return nullptr;
}

LessonTable read_lesson_table(std::string_view id, std::string_view name, const CompiledFile* file,
                              std::string_view path, std::span<const SourceHash> current) {
  LessonTable t;
  const std::string who(id);
  if (!file) {
    t.status.state = CompiledState::Missing;
    t.status.message = "the compiled-code table has no entry for " + who + " (" +
                       std::string(path) + "): the counts follow the source; " +
                       std::string(kRemake);
    return t;
  }
  auto unreadable = [&](size_t line, const std::string& what) -> LessonTable {
    t.status.state = CompiledState::Unreadable;
    t.status.message = "the compiled-code table for " + who + " cannot be read (" +
                       std::string(path) + (line ? " line " + std::to_string(line) : "") + ": " +
                       what + "): the counts follow the source; " + std::string(kRemake);
    t.accesses.clear();
    return std::move(t);
  };

  std::string_view lesson, arch, nvcc, origin, nvdisasm;
  std::vector<std::pair<std::string_view, std::string_view>> sources;
  struct Span {
    std::string_view body;
    size_t begin, end;
  };
  std::vector<Span> spans;
  const std::vector<std::string_view> lines = split(file->text, '\n');
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string_view line = lines[n];
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string_view> f = split(line, '\t');
    const size_t at = n + 1;
    if (f.size() == 9) {
      if (spans.empty()) return unreadable(at, "an instruction before any kernel");
      if (!read_instructions(f, t.accesses)) return unreadable(at, "a malformed instruction");
      spans.back().end = t.accesses.size();
    } else if (f.size() == 3 && f[0] == "source") {
      sources.emplace_back(f[1], f[2]);
    } else if (f.size() == 2 && f[0] == "kernel") {
      spans.push_back({f[1], t.accesses.size(), t.accesses.size()});
    } else if (std::string_view* field = f.size() != 2        ? nullptr
                                         : f[0] == "lesson"   ? &lesson
                                         : f[0] == "arch"     ? &arch
                                         : f[0] == "nvcc"     ? &nvcc
                                         : f[0] == "origin"   ? &origin
                                         : f[0] == "nvdisasm" ? &nvdisasm
                                                              : nullptr) {
      *field = f[1];
    } else {
      return unreadable(at, "not a record of the format");
    }
  }
  if (lesson != id) return unreadable(0, "it is the table of '" + std::string(lesson) + "'");
  if (arch != kCompiledArch) return unreadable(0, "it is for '" + std::string(arch) + "'");
  if (nvcc.empty() || (origin != "tree" && origin != "build"))
    return unreadable(0, "no nvcc release or origin");
  if (sources.empty()) return unreadable(0, "it names no source it was made from");
  if (spans.empty()) return unreadable(0, "it holds no kernel");
  // Every kernel is one of this lesson's Body instantiations.
  const std::string prefix = "ts::lessons::" + std::string(name) + "::";
  for (const Span& s : spans)
    if (s.body.substr(0, prefix.size()) != prefix)
      return unreadable(0, "kernel " + std::string(s.body) + " is not the lesson's");

  t.status.origin =
      origin == "tree"
          ? "the copy kept in the tree (" + std::string(path) + ", nvcc " + nvcc_short(nvcc) + ")"
          : "generated at build time (nvcc " + nvcc_short(nvcc) +
                (nvdisasm.empty() ? "" : ", nvdisasm " + std::string(nvdisasm)) + ")";
  std::vector<std::string_view> changed;
  for (const auto& [source, hash] : sources) {
    const auto it =
        std::lower_bound(current.begin(), current.end(), source,
                         [](const SourceHash& h, std::string_view p) { return h.path < p; });
    if (it == current.end() || it->path != source || it->hash != hash) changed.push_back(source);
  }
  if (!changed.empty()) {
    t.status.state = CompiledState::Stale;
    t.status.message = "the compiled-code table for " + who + " was made from other sources (" +
                       changed_files(changed) + " changed): the counts follow the source; " +
                       std::string(kRemake);
    t.accesses.clear();
    return t;
  }

  for (const Span& s : spans)
    t.kernels.push_back(
        {s.body, kCompiledArch,
         std::span<const CompiledAccess>(t.accesses).subspan(s.begin, s.end - s.begin)});
  std::sort(t.kernels.begin(), t.kernels.end(),
            [](const CompiledKernel& a, const CompiledKernel& b) { return a.body < b.body; });
  for (size_t i = 1; i < t.kernels.size(); ++i)
    if (t.kernels[i].body == t.kernels[i - 1].body) {
      const std::string body(t.kernels[i].body);
      t.kernels.clear();
      return unreadable(0, "kernel " + body + " listed twice");
    }
  t.status.state = CompiledState::Current;
  return t;
}

}  // namespace ts::compiled

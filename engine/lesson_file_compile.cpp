#include "engine/lesson_file_compile.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "engine/backend.hpp"
#include "engine/lesson_file_config.hpp"  // generated: the toolchain of this build

namespace ts::lesson_file_detail {
namespace fs = std::filesystem;
namespace {

bool executable(const std::string& path) {
  return ::access(path.c_str(), X_OK) == 0 && !fs::is_directory(path);
}

// A compiler named without a folder, found on PATH ("" when it is not there).
std::string on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && executable(dir + "/" + name)) return dir + "/" + name;
  return "";
}

bool has_headers(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "lessons" / "lesson.hpp", ec) &&
         fs::exists(dir / "engine" / "lesson_plugin.hpp", ec);
}

// The program's own folder (/proc/self/exe), for an installed TileScope's headers.
fs::path program_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

Toolchain plugin_toolchain() {
  Toolchain t;
  const char* chosen = std::getenv("TILESCOPE_CXX");
  const std::string wanted = chosen && *chosen ? chosen : lesson_file_config::kCompiler;
  t.compiler = on_path(wanted);
  // A package built where the compiler lived elsewhere (/usr/lib/ccache,
  // /opt/gcc): the same compiler by name, on this machine's PATH.
  if (t.compiler.empty() && !(chosen && *chosen))
    t.compiler = on_path(fs::path(wanted).filename().string());
  if (t.compiler.empty()) {
    t.problem = std::string("the C++ compiler ") +
                (chosen && *chosen ? "named by TILESCOPE_CXX (" + wanted + ")"
                                   : "TileScope was built with (" + wanted + ")") +
                " is not there: install it, or set TILESCOPE_CXX to a g++ or clang++ of the "
                "same version";
    return t;
  }
  t.limits = compile_limits(t.problem);
  if (!t.problem.empty()) return t;
  for (const char* f : lesson_file_config::kFlags)
    t.flags.emplace_back(f);
  // The GPU half: where a GPU can run it (or TILESCOPE_PLUGIN_CUDA=1 asks, to
  // build it on a machine without one); the simulator's body is always there.
  const char* cuda = std::getenv("TILESCOPE_PLUGIN_CUDA");
  const bool forced = cuda && std::string(cuda) == "1", off = cuda && std::string(cuda) == "0";
  if (!off && (forced || cuda_status().usable)) {
    if (!*lesson_file_config::kNvcc)
      t.cuda_note = "this TileScope was built without CUDA: the lesson file runs on the simulator";
    else if ((t.nvcc = on_path(lesson_file_config::kNvcc)).empty())
      t.cuda_note = std::string("nvcc (") + lesson_file_config::kNvcc +
                    ") is not there: the lesson file runs on the simulator";
    for (const char* f : lesson_file_config::kCudaFlags)
      if (*f && !t.nvcc.empty()) t.cuda_flags.emplace_back(f);
    for (const char* f : lesson_file_config::kCudaLink)
      if (*f && !t.nvcc.empty()) t.cuda_link.emplace_back(f);
  }
  // An installed TileScope has its headers beside its programs; a build tree
  // reads the source tree it was configured from.
  const fs::path installed = program_dir() / lesson_file_config::kInstalledInclude;
  if (has_headers(installed))
    t.include_dir = installed.lexically_normal().string();
  else if (has_headers(lesson_file_config::kSourceInclude))
    t.include_dir = lesson_file_config::kSourceInclude;
  else
    t.problem = std::string("TileScope's headers are not found (neither ") + installed.string() +
                " nor " + lesson_file_config::kSourceInclude +
                " holds lessons/lesson.hpp): reinstall TileScope (cmake --install)";
  return t;
}

std::vector<std::string> make_dependencies(std::string_view text) {
  std::vector<std::string> deps;
  const size_t colon = text.find(": ");
  if (colon == std::string_view::npos) return deps;
  std::string word;
  for (size_t i = colon + 2; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {  // an escaped space
      word += ' ';
      ++i;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {  // a continued line
      ++i;
    } else if (c == ' ' || c == '\n' || c == '\t') {
      if (!word.empty()) deps.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return deps;
}

uint64_t fnv1a(std::string_view data, uint64_t hash) {
  for (const char c : data) {
    hash ^= uint64_t(static_cast<unsigned char>(c));
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hex16(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace ts::lesson_file_detail

// The compile step of lesson files (engine/lesson_file.cpp): the toolchain
// recorded at configure time, one compiler run with its output captured, and
// the dependency list it writes. Internal to the engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ts::lesson_file_detail {

struct Toolchain {
  std::string compiler;            // absolute, or a name found on PATH
  std::vector<std::string> flags;  // TileScope's C++ flags, then the plug-in's
  std::string include_dir;         // TileScope's headers: the source tree or the installed copy
  std::string problem;             // non-empty: why nothing can be compiled here
  // The GPU half (engine/lesson_plugin_cuda.hpp): nvcc and its flags; empty
  // where this build has no CUDA, nvcc is gone, or the plug-in should not have
  // one (no usable GPU, unless TILESCOPE_PLUGIN_CUDA=1; never with =0).
  std::string nvcc;
  std::vector<std::string> cuda_flags;
  std::vector<std::string> cuda_link;  // the plug-in's own CUDA runtime
  std::string cuda_note;               // why there is no GPU half, where one was asked for
};
// The recorded toolchain (TILESCOPE_CXX names another compiler), checked:
// the compiler is there and so are the headers.
Toolchain plugin_toolchain();

struct CompilerRun {
  int exit_code = -1;  // -1: it did not start or did not exit normally
  std::string output;  // stdout and stderr together
  std::string error;   // why it did not start
};
// Runs argv (argv[0] the compiler) with the C locale, so that its messages
// parse; its output goes through `log_path`, which is removed afterwards.
CompilerRun run_compiler(const std::vector<std::string>& argv, const std::string& log_path);

// The prerequisites of a make-style dependency file (-MMD -MF): "out: a b \".
std::vector<std::string> make_dependencies(std::string_view text);

// FNV-1a, 64 bits: the cache key and the dependency check (not a security hash).
uint64_t fnv1a(std::string_view data, uint64_t hash = 14695981039346656037ull);
std::string hex16(uint64_t v);

}  // namespace ts::lesson_file_detail

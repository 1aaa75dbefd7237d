// The compile step of lesson files (engine/lesson_file.cpp): the toolchain
// recorded at configure time, one compiler run under limits with its output captured, and
// the dependency list it writes. Internal to the engine.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::lesson_file_detail {

// What one compile may take (engine/compiler_run.cpp): a lesson file is the
// student's, and so is whatever it makes the compiler do.
struct CompileLimits {
  double seconds = 60;                        // wall clock for the whole compile (all its runs)
  size_t output_bytes = size_t(1) << 20;      // the compiler's output kept; the rest counted
  uint64_t memory_bytes = uint64_t(4) << 30;  // address space of the host compiler (0: none)
  uint64_t file_bytes = uint64_t(1) << 30;    // the largest file it may write
};
// The limits with TILESCOPE_COMPILE_SECONDS and TILESCOPE_COMPILE_MEMORY_MB
// applied; `problem` says why a value set there is refused.
CompileLimits compile_limits(std::string& problem);

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
  CompileLimits limits;
};
// The recorded toolchain (TILESCOPE_CXX names another compiler), checked:
// the compiler is there and so are the headers.
Toolchain plugin_toolchain();

struct CompilerRun {
  int exit_code = -1;          // -1: it did not start or did not exit normally
  std::string output;          // stdout and stderr together, at most limits.output_bytes
  uint64_t dropped_bytes = 0;  // what it printed beyond that
  bool timed_out = false;      // stopped at the deadline, with its process group
  std::string error;           // why it did not start or finish
};
// Runs argv (argv[0] the compiler) with the C locale, so that its messages
// parse, in a process group of its own under `limits`, its output read from a
// pipe; at `deadline` the whole group is killed.
CompilerRun run_compiler(const std::vector<std::string>& argv, const CompileLimits& limits,
                         std::chrono::steady_clock::time_point deadline);

// The prerequisites of a make-style dependency file (-MMD -MF): "out: a b \".
std::vector<std::string> make_dependencies(std::string_view text);

// FNV-1a, 64 bits: the cache key and the dependency check (not a security hash).
// The plug-in cache (engine/plugin_cache.cpp). SHA-256 of `data`, 64 hex digits.
std::string sha256_hex(std::string_view data);
// Makes `dir` and the folder above it (0700) where they are not there, and
// refuses either when another user owns it or others may write to it.
std::optional<std::string> private_cache_dir(const std::filesystem::path& dir);
// The plug-in `so` opened without following links, a regular file of this
// user's that others cannot write, its bytes' SHA-256 `recorded`: its
// descriptor, else -1 and `why`.
int open_verified(const std::filesystem::path& so, const std::string& recorded, std::string& why);

uint64_t fnv1a(std::string_view data, uint64_t hash = 14695981039346656037ull);
std::string hex16(uint64_t v);

}  // namespace ts::lesson_file_detail

// The data behind engine/compiled_code.hpp: the per-lesson files of the
// compiled-code table as the build embedded them, the hashes of the sources
// as they were built, and the reader that turns one file into a lesson's
// kernels and status. The embedded data is defined by the .cpp that
// engine/compiled/embed_compiled_table.cmake generates; the reader by
// engine/compiled/read_table.cpp. Tests read altered copies through it.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "engine/compiled_code.hpp"

namespace ts::compiled {

// One lesson's file: `name` is the lesson's file name ("scan_blelloch" for
// lessons/scan_blelloch.hpp), `text` its content (scripts/sass_table.py's format).
struct CompiledFile {
  std::string_view name;
  std::string_view text;
};

// A source file's hash: the first 16 hex digits of its SHA-256.
struct SourceHash {
  std::string_view path;  // from the project's root: "lessons/scan_kit.hpp"
  std::string_view hash;
};

// The files embedded, sorted by name.
extern const std::span<const CompiledFile> kFiles;
// Every lessons/ header and engine/cuda/*.cuh as this build compiled them, sorted by path.
extern const std::span<const SourceHash> kSourceHashes;
// Where the files came from: "lessons/compiled/sm_90" (the tree) or the build's directory.
extern const std::string_view kDataDir;

// One lesson's table. Its kernels' spans point into `accesses`, their strings
// into the text it was read from: keep that alive (the embedded texts are).
struct LessonTable {
  CompiledStatus status;
  std::vector<CompiledAccess> accesses;  // every kernel's, one kernel after another
  std::vector<CompiledKernel> kernels;   // sorted by body; empty unless current

  LessonTable() = default;
  LessonTable(LessonTable&&) = default;  // a moved vector keeps its elements where they were
  LessonTable& operator=(LessonTable&&) = default;
  LessonTable(const LessonTable&) = delete;
};

// Reads lesson `id` (its file name `name`: scan.blelloch, scan_blelloch)
// from `file` (nullptr: none embedded), as `path` calls it in messages, and
// checks the sources it was made from against `current`.
LessonTable read_lesson_table(std::string_view id, std::string_view name, const CompiledFile* file,
                              std::string_view path, std::span<const SourceHash> current);

// The embedded file of lesson file name `name`, or nullptr.
const CompiledFile* find_file(std::span<const CompiledFile> files, std::string_view name);

}  // namespace ts::compiled

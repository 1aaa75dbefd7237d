// Lesson files: a header in the form of lessons/*.hpp (the kernel written
// with the accessors of lessons/access.hpp, TS_KERNEL_BODY, `struct Lesson`
// with its descriptor, all in `namespace ts::lessons::<name>`), anywhere on
// disk, compiled while the program runs with the toolchain TileScope was built
// with into a plug-in (engine/lesson_plugin.hpp), loaded, and registered as the
// lesson "file.<file name>" (engine/runtime_lessons.hpp). It then runs on the
// simulator as a built-in lesson does: trace, replay, hazards, banks, counters.
//
//   LessonFile f = load_lesson_file("my_scan.hpp");
//   if (!f.ok) std::cerr << describe_failure(f);   // the compiler's errors at their lines
//   else { RunRequest req; req.lesson_id = f.lesson_id; ... run(req); }
//
// Plug-ins are cached by content in lesson_cache_dir(): the key hashes the
// file, the lines TileScope adds, the compiler, its flags and the program; a
// hit is checked against every header the compile read (the file's own
// includes, TileScope's headers), so a run without edits loads in milliseconds.
// Nothing here throws: every failure (no file, a folder, no Lesson, no
// compiler, a compiler error, a plug-in that does not load or whose
// descriptor the registry refuses) is a message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// One line of the compiler's "file:line:column: severity: message".
struct CompilerDiagnostic {
  std::string file;          // as the compiler names it (the lesson file's absolute path)
  int line = 0, column = 0;  // 1-based; 0 where the compiler gave none
  std::string severity;      // "error", "fatal error", "warning" or "note" (context)
  std::string message;
};

struct LessonFile {
  bool ok = false;
  std::string path;       // absolute
  std::string lesson_id;  // "file.my_scan", when ok
  std::string error;      // when not ok: what went wrong and what to do
  // The compiler's errors, warnings and context lines, in its order.
  std::vector<CompilerDiagnostic> diagnostics;
  std::string compiler_output;  // as the compiler printed it
  bool cached = false;          // the plug-in came from the cache (or was loaded already)
  bool not_cached = false;      // cached_only, and the plug-in was not there
  std::string cache_note;       // why a plug-in in the cache was refused (and compiled again)
  bool gpu = false;             // nvcc compiled the GPU half: the CUDA backend runs it too
  double seconds = 0;           // from the call to the lesson registered (or the failure)
};

// The largest lesson file read (1 MiB): a larger one is no lesson header.
inline constexpr uintmax_t kMaxLessonFileBytes = 1 << 20;

// `cached_only`: never run the compiler; a file whose plug-in is not in the
// cache (edited since it was compiled) fails with `not_cached` set. The window
// compiles in a child process first and then loads here, on its own thread.
LessonFile load_lesson_file(const std::string& path, bool cached_only = false);
// Compiles the file as load_lesson_file() does, but registers it with `spec`
// as its descriptor (TileScope's, e.g. a puzzle's) and never opens the
// plug-in in this process: the file's code runs only in the lesson child
// (engine/lesson_child.hpp). The puzzle grader loads solutions so. A file
// this process loaded already, unchanged, is taken as it is.
struct LessonSpec;
LessonFile load_lesson_file_as(const std::string& path, const LessonSpec& spec);

// The compiler's "file:line:column: severity: message" lines (GCC and Clang),
// and GCC's context lines ("file:line:column:   required from here", as notes).
std::vector<CompilerDiagnostic> parse_compiler_output(const std::string& text);
// `s` with its middle left out where it is longer than `most` characters,
// saying how many: a message holding a 200,000-character identifier stays
// readable, its start and its end kept.
std::string shortened(const std::string& s, size_t most);
// "/home/a/my_scan.hpp:12:5: error: expected ';' before '}' token"
std::string diagnostic_line(const CompilerDiagnostic& d);
// The first error of the lesson file itself (or of the lines an error in
// TileScope's headers was required from); nullptr when there is none.
const CompilerDiagnostic* first_error_in_file(const LessonFile& f);
// What the command line prints for a failure: the error, then each error and
// warning with the file's line under it and a caret at the column.
std::string describe_failure(const LessonFile& f);

// Where plug-ins are cached: $XDG_CACHE_HOME/tilescope/plugins, else
// ~/.cache/tilescope/plugins, else $TMPDIR/tilescope-<uid>/plugins. It is
// used only while it and the folder above are this user's and no one else
// may write to them; every plug-in's SHA-256 is checked before it loads.
std::string lesson_cache_dir();

}  // namespace ts

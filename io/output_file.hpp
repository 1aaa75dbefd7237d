// The one way either program writes a file (traces, reports, CSV, JSON,
// pictures, videos, cells-json): nothing the user owns is lost.
//
//   OutputOptions o{.force = opt.force, .inputs = {opt.file}};
//   std::string err;
//   auto out = open_output("r.json", o, &err);  // refused: an alias of an input,
//   if (!out) fail(err);                         // an existing file without force,
//   out->write(text);                            // a folder, a FIFO nobody reads
//   if (!out->commit(&err)) fail(err);           // "cannot write r.json: No space left on device"
//
// A regular file (or a new path) is written to a temporary file beside it,
// synced and renamed over it once complete, so a failed or interrupted write
// leaves what was there; through symbolic links the file they lead to is
// replaced and the links stay. An external writer (ffmpeg) is given
// write_path(), the temporary, and the result is committed the same way.
// A device or a FIFO with a reader (/dev/null, a terminal, a pipe) is written
// in place, as a shell redirection would; opening never blocks.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

struct OutputOptions {
  bool force = false;               // replace an existing regular file
  std::vector<std::string> inputs;  // files being read: never written, whatever the alias
  // How the user says "replace it", for the refusal's message.
  std::string force_hint = "add --force to overwrite it";
};

// Whether two paths name one file: the same inode when both exist (hard and
// symbolic links), else the same resolved path ("./", "..", /proc/self/cwd).
bool same_file(const std::string& a, const std::string& b);

// nullopt when `out` may be written under `o`; else why not, naming the way
// out (another file, or force).
std::optional<std::string> check_output(const std::string& out, const OutputOptions& o);

class OutputTarget {
 public:
  OutputTarget(OutputTarget&& o) noexcept;
  OutputTarget& operator=(OutputTarget&&) = delete;
  OutputTarget(const OutputTarget&) = delete;
  ~OutputTarget();  // not committed: the temporary is removed, the original kept

  const std::string& path() const { return path_; }
  // Where the bytes go: the temporary beside a regular file, or the special
  // file itself. Give this to an external writer, then commit().
  const std::string& write_path() const { return write_path_; }
  bool direct() const { return direct_; }  // a device or a FIFO, written in place

  // Appends; a short or failed write is kept and reported by commit().
  bool write(const void* data, size_t n);
  bool write(std::string_view s) { return write(s.data(), s.size()); }
  // An ostream onto the target, for writers that take one.
  bool write_with(const std::function<bool(std::ostream&)>& fill);
  // Marks the content bad (the producer failed): commit() then fails with `why`.
  void fail(const std::string& why);

  // Verifies without publishing: fsync and close. For files published
  // together once all are written (a PNG sequence: no frame replaced unless
  // every frame was written); commit() then only publishes. false with
  // `error` as commit's, and the temporary removed.
  bool seal(std::string* error);

  // Verifies and publishes: fsync and close (a regular file), then the rename
  // over the original. false with `error` ("cannot write P: reason") on any
  // failure, and then the original is as it was.
  bool commit(std::string* error);

 private:
  friend std::optional<OutputTarget> open_output(const std::string&, const OutputOptions&,
                                                 std::string*);
  OutputTarget() = default;
  std::string path_, target_, write_path_;
  int fd_ = -1;
  bool direct_ = false, no_replace_ = false, done_ = false, sealed_ = false;
  std::string error_;
};

// Checks (check_output), then opens for writing. nullopt with `error` set
// when refused or when the file cannot be opened.
std::optional<OutputTarget> open_output(const std::string& path, const OutputOptions& o,
                                        std::string* error);

// open_output, `fill`, commit. false with `error` on any refusal or failure.
bool write_output(const std::string& path, const OutputOptions& o,
                  const std::function<bool(std::ostream&)>& fill, std::string* error);
bool write_output(const std::string& path, const OutputOptions& o, std::string_view bytes,
                  std::string* error);

// write_output that replaces an existing file and has no inputs: for a path
// the user already confirmed (the window's Save dialog).
bool write_file_safely(const std::string& path, const std::function<bool(std::ostream&)>& write,
                       std::string* error);

}  // namespace ts

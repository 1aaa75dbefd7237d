// The one way either program reads a file (traces, performance reports,
// lecture scripts, lesson files to come): the kind and the size are checked
// before a byte is read, and opening never blocks.
//
//   std::string err;
//   auto in = map_input(path, {"performance report", 64 << 20}, &err);
//   if (!in) fail(err);   // "r.json: not a regular file (a character device); ..."
//   parse(in->text());
//
// Only regular files are read: a folder, a FIFO, a device (/dev/zero never
// ends, a FIFO waits for a writer) or a socket is refused with its kind, a
// file over the limit with its size and the limit. The file is mapped, not
// copied: reading a part of a large file costs only that part.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ts {

struct InputLimits {
  const char* what = "file";  // "trace", "performance report": for the messages
  uint64_t max_bytes = 0;     // larger files are refused before they are read
};

// An open regular file, its size taken after opening (fstat).
class InputFile {
 public:
  InputFile(InputFile&& o) noexcept;
  InputFile& operator=(InputFile&&) = delete;
  InputFile(const InputFile&) = delete;
  ~InputFile();
  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  int fd() const { return fd_; }
  // Exactly n bytes from `offset`; false with `error` when the file ended
  // early (it shrank) or a read failed.
  bool read_at(uint64_t offset, void* out, size_t n, std::string* error) const;

 private:
  friend std::optional<InputFile> open_input(const std::string&, const InputLimits&, std::string*);
  InputFile() = default;
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Refuses what is not a regular file, or is larger than `lim.max_bytes`
// (messages start with the path).
std::optional<InputFile> open_input(const std::string& path, const InputLimits& lim,
                                    std::string* error);

// A regular file mapped read-only (an empty file maps to an empty span).
// Files are replaced by rename (output_file.hpp), never truncated in place,
// so a mapping does not shrink under its reader.
class MappedInput {
 public:
  MappedInput(MappedInput&& o) noexcept;
  MappedInput& operator=(MappedInput&&) = delete;
  MappedInput(const MappedInput&) = delete;
  ~MappedInput();
  const std::string& path() const { return path_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }
  size_t size() const { return size_; }

 private:
  friend std::optional<MappedInput> map_input(const std::string&, const InputLimits&, std::string*);
  MappedInput() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

std::optional<MappedInput> map_input(const std::string& path, const InputLimits& lim,
                                     std::string* error);

// The whole text of a small file (a lecture, a report), through open_input.
std::optional<std::string> read_input_text(const std::string& path, const InputLimits& lim,
                                           std::string* error);

}  // namespace ts

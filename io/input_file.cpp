// The input layer: see input_file.hpp.
#include "io/input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ts {

namespace {

const char* file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "of an unknown kind";
}

std::string not_regular(const InputLimits& lim, mode_t m) {
  if (S_ISDIR(m)) return std::string("is a directory, not a ") + lim.what + " file";
  return std::string("not a regular file (") + file_kind(m) + ")";
}

std::string size_text(uint64_t b) {
  if (b >= (uint64_t(1) << 30) && b % (uint64_t(1) << 30) == 0)
    return std::to_string(b >> 30) + " GiB";
  if (b >= (uint64_t(1) << 20) && b % (uint64_t(1) << 20) == 0)
    return std::to_string(b >> 20) + " MiB";
  return std::to_string(b) + " bytes";
}

}  // namespace

std::optional<InputFile> open_input(const std::string& path, const InputLimits& lim,
                                    std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<InputFile> {
    if (error) *error = path + ": " + why;
    return std::nullopt;
  };
  if (path.empty()) {
    if (error) *error = std::string("no ") + lim.what + " file given (an empty name)";
    return std::nullopt;
  }
  // Looked at before it is opened: opening a FIFO for reading waits for a
  // writer, and a device (/dev/zero, /dev/urandom) never ends.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fail(std::string("cannot open: ") + strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(not_regular(lim, st.st_mode));
  // O_NONBLOCK: should the path become a FIFO after the look, open still returns.
  InputFile f;
  f.path_ = path;
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f.fd_ < 0) return fail(std::string("cannot open: ") + strerror(errno));
  if (::fstat(f.fd_, &st) != 0)
    return fail(std::string("cannot read its size: ") + strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(not_regular(lim, st.st_mode));
  f.size_ = uint64_t(st.st_size);
  if (f.size_ > lim.max_bytes)
    return fail("the file has " + std::to_string(f.size_) + " bytes; TileScope reads a " +
                lim.what + " of at most " + size_text(lim.max_bytes));
  return f;
}

InputFile::InputFile(InputFile&& o) noexcept
    : path_(std::move(o.path_)), fd_(o.fd_), size_(o.size_) {
  o.fd_ = -1;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool InputFile::read_at(uint64_t offset, void* out, size_t n, std::string* error) const {
  auto* p = static_cast<uint8_t*>(out);
  while (n > 0) {
    const ssize_t r = ::pread(fd_, p, std::min<size_t>(n, size_t(1) << 30), off_t(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (error)
        *error = path_ + ": " +
                 (r == 0 ? std::string("the file changed while it was read")
                         : std::string("read error: ") + strerror(errno));
      return false;
    }
    p += r;
    n -= size_t(r);
    offset += uint64_t(r);
  }
  return true;
}

std::optional<MappedInput> map_input(const std::string& path, const InputLimits& lim,
                                     std::string* error) {
  auto f = open_input(path, lim, error);
  if (!f) return std::nullopt;
  MappedInput m;
  m.path_ = path;
  if (f->size() == 0) return m;
  void* p = ::mmap(nullptr, size_t(f->size()), PROT_READ, MAP_PRIVATE, f->fd(), 0);
  if (p == MAP_FAILED) {
    if (error) *error = path + ": cannot map the file: " + strerror(errno);
    return std::nullopt;
  }
  // Read front to back, mostly once.
  ::madvise(p, size_t(f->size()), MADV_SEQUENTIAL);
  m.data_ = static_cast<const uint8_t*>(p);
  m.size_ = size_t(f->size());
  return m;
}

MappedInput::MappedInput(MappedInput&& o) noexcept
    : path_(std::move(o.path_)), data_(o.data_), size_(o.size_) {
  o.data_ = nullptr;
  o.size_ = 0;
}

MappedInput::~MappedInput() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

std::optional<std::string> read_input_text(const std::string& path, const InputLimits& lim,
                                           std::string* error) {
  auto f = open_input(path, lim, error);
  if (!f) return std::nullopt;
  std::string text(size_t(f->size()), '\0');
  if (!f->read_at(0, text.data(), text.size(), error)) return std::nullopt;
  return text;
}

}  // namespace ts

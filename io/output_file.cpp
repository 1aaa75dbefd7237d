// The output layer: see output_file.hpp.
#include "io/output_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <system_error>

namespace ts {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int e) {
  return std::strerror(e);
}

const char* file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "of an unknown kind";
}

// 0, or the errno of a failed or short write (a write of 0 bytes is EIO).
int write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {  // a pipe whose reader is slow: wait for it
      fd_set set;
      FD_ZERO(&set);
      FD_SET(fd, &set);
      ::select(fd + 1, nullptr, &set, nullptr, nullptr);
      continue;
    }
    if (w <= 0) return w == 0 ? EIO : errno;
    p += w;
    n -= size_t(w);
  }
  return 0;
}

// An ostream buffer onto OutputTarget::write, so the first error is kept.
class TargetBuf : public std::streambuf {
 public:
  explicit TargetBuf(OutputTarget& t) : t_(t) { setp(buf_, buf_ + sizeof buf_); }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n < std::streamsize(sizeof buf_)) return std::streambuf::xsputn(s, n);
    if (!drain() || !t_.write(s, size_t(n))) return 0;
    return n;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const bool ok = t_.write(pbase(), size_t(pptr() - pbase()));
    setp(buf_, buf_ + sizeof buf_);
    return ok;
  }
  OutputTarget& t_;
  char buf_[1 << 16];
};

// The file `path` leads to through symbolic links (the path itself when it
// is no link, or a link's missing target: a new file there).
std::optional<std::string> follow_links(const std::string& path, std::string* target) {
  fs::path p = path;
  for (int hops = 0;; ++hops) {
    std::error_code ec;
    const fs::file_status s = fs::symlink_status(p, ec);
    if (ec || !fs::is_symlink(s)) break;
    if (hops == 40) return std::string("too many levels of symbolic links");
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) return ec.message();
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  *target = p.string();
  return std::nullopt;
}

// Publishes tmp as target; without `replace` a file that appeared at target
// meanwhile is not replaced (EEXIST).
int publish(const std::string& tmp, const std::string& target, bool replace) {
#ifdef RENAME_NOREPLACE
  if (!replace) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0)
      return 0;
    if (errno != EINVAL && errno != ENOSYS) return errno;  // a file system without it: plain
  }
#endif
  return ::rename(tmp.c_str(), target.c_str()) == 0 ? 0 : errno;
}

// The rename reaches the disk with its folder: best effort, as editors do.
void sync_folder(const std::string& file) {
  fs::path dir = fs::path(file).parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;
  const fs::path ra = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path rb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && ra == rb;
}

std::optional<std::string> check_output(const std::string& out, const OutputOptions& o) {
  if (out.empty()) return std::string("the output file name is empty");
  for (const auto& in : o.inputs)
    if (same_file(out, in))
      return "the output " + out + " is the input " + in +
             ": writing it would destroy what is being read; choose another output file";
  std::error_code ec;
  const fs::file_status st = fs::status(out, ec);  // follows links: their target counts
  if (!o.force && fs::is_regular_file(st)) return out + " exists; " + o.force_hint;
  // Said before the work that would make the output, not after it.
  if (fs::is_directory(st)) return "cannot write " + out + ": it is a directory";
  return std::nullopt;
}

std::optional<OutputTarget> open_output(const std::string& path, const OutputOptions& o,
                                        std::string* error) {
  auto refuse = [&](const std::string& why) -> std::optional<OutputTarget> {
    if (error) *error = why;
    return std::nullopt;
  };
  auto fail = [&](const std::string& why) { return refuse("cannot write " + path + ": " + why); };
  if (auto e = check_output(path, o)) return refuse(*e);

  OutputTarget t;
  t.path_ = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // Replacing a block device or a socket by a file is never what was meant.
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
      return fail(std::string("it is ") + file_kind(st.st_mode));
    // O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting.
    t.fd_ = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (t.fd_ < 0 && errno == ENXIO && S_ISFIFO(st.st_mode))
      return fail("it is a FIFO and nothing reads from it; start its reader first");
    if (t.fd_ < 0) return fail(errno_text(errno));
    struct stat now {};
    if (::fstat(t.fd_, &now) != 0 || S_ISREG(now.st_mode))
      return fail("it changed while it was opened");
    // Written in place, as a shell redirection would; a file renamed over
    // it would replace the device.
    t.direct_ = true;
    t.target_ = t.write_path_ = path;
    return t;
  }
  // A regular file or a new one. Through symbolic links the file they lead
  // to is replaced and the links stay links.
  if (auto e = follow_links(path, &t.target_)) return fail(*e);
  struct stat tst {};
  const bool exists = ::stat(t.target_.c_str(), &tst) == 0;
  if (exists && !S_ISREG(tst.st_mode))  // changed since the first look
    return fail(std::string("it is ") + file_kind(tst.st_mode));
  // A read-only file stays unwritten, as a direct write would leave it.
  if (exists && ::access(t.target_.c_str(), W_OK) != 0) return fail(errno_text(errno));
  t.no_replace_ = !exists && !o.force;  // a file that appears meanwhile is kept

  // Beside the target, so the rename stays on one file system.
  static std::atomic<unsigned> counter{0};
  const mode_t mode = exists ? (tst.st_mode & 07777) : 0666;  // new files: 0666 less the umask
  for (int attempt = 0; attempt < 100 && t.fd_ < 0; ++attempt) {
    t.write_path_ =
        t.target_ + ".part-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    t.fd_ = ::open(t.write_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (t.fd_ < 0 && errno != EEXIST) {
      t.write_path_.clear();
      return fail(errno_text(errno));
    }
  }
  if (t.fd_ < 0) {
    t.write_path_.clear();
    return fail("no free name for a temporary file beside it");
  }
  if (exists) ::fchmod(t.fd_, mode);  // keep the permissions the file had
  return t;
}

OutputTarget::OutputTarget(OutputTarget&& o) noexcept
    : path_(std::move(o.path_)),
      target_(std::move(o.target_)),
      write_path_(std::move(o.write_path_)),
      fd_(o.fd_),
      direct_(o.direct_),
      no_replace_(o.no_replace_),
      done_(o.done_),
      sealed_(o.sealed_),
      error_(std::move(o.error_)) {
  o.fd_ = -1;
  o.done_ = true;
}

OutputTarget::~OutputTarget() {
  if (fd_ >= 0) ::close(fd_);
  if (!done_ && !direct_ && !write_path_.empty()) ::unlink(write_path_.c_str());
}

bool OutputTarget::write(const void* data, size_t n) {
  if (!error_.empty()) return false;
  if (fd_ < 0) {
    error_ = "the file is already closed";
    return false;
  }
  if (const int e = write_all(fd_, static_cast<const char*>(data), n)) {
    error_ = errno_text(e);
    return false;
  }
  return true;
}

bool OutputTarget::write_with(const std::function<bool(std::ostream&)>& fill) {
  TargetBuf buf(*this);
  std::ostream os(&buf);
  const bool ok = fill(os) && os.flush();
  if (!ok && error_.empty()) error_ = "the content could not be produced";
  return ok && error_.empty();
}

void OutputTarget::fail(const std::string& why) {
  if (error_.empty()) error_ = why;
}

bool OutputTarget::seal(std::string* error) {
  auto fail_with = [&](const std::string& why) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!direct_ && !write_path_.empty()) ::unlink(write_path_.c_str());
    done_ = true;
    if (error) *error = "cannot write " + path_ + ": " + why;
    return false;
  };
  if (done_) return fail_with("it was already committed");
  if (sealed_) return true;
  if (!error_.empty()) return fail_with(error_);
  // A regular file is on the disk before it replaces the original; a device
  // or a pipe has nothing to sync (fsync would say EINVAL).
  if (!direct_ && ::fsync(fd_) != 0) return fail_with(errno_text(errno));
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0 && errno != EINTR) return fail_with(errno_text(errno));
  sealed_ = true;
  return true;
}

bool OutputTarget::commit(std::string* error) {
  if (!seal(error)) return false;
  if (!direct_) {
    if (const int e = publish(write_path_, target_, !no_replace_)) {
      ::unlink(write_path_.c_str());
      done_ = true;
      if (error)
        *error = "cannot write " + path_ + ": " +
                 (e == EEXIST ? "a file of that name appeared while it was written; it was kept"
                              : errno_text(e));
      return false;
    }
    sync_folder(target_);
  }
  done_ = true;
  return true;
}

bool write_output(const std::string& path, const OutputOptions& o,
                  const std::function<bool(std::ostream&)>& fill, std::string* error) {
  auto out = open_output(path, o, error);
  if (!out) return false;
  out->write_with(fill);
  return out->commit(error);
}

bool write_output(const std::string& path, const OutputOptions& o, std::string_view bytes,
                  std::string* error) {
  auto out = open_output(path, o, error);
  if (!out) return false;
  out->write(bytes);
  return out->commit(error);
}

bool write_file_safely(const std::string& path, const std::function<bool(std::ostream&)>& write,
                       std::string* error) {
  OutputOptions o;
  o.force = true;
  return write_output(path, o, write, error);
}

}  // namespace ts

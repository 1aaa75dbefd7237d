// The progress file (analysis/puzzle.hpp): a student's record of work, so it
// is never lost. Read strictly (a file that does not parse is named and kept,
// never written over), changed under a lock (two `check --record` at once
// both count), written whole to a new file and renamed over the old (a crash
// mid-write leaves the old one), every failure reported; a FIFO or a folder
// is refused before it is opened, a device written directly.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/puzzle.hpp"

namespace ts {
namespace fs = std::filesystem;
namespace {

std::string errno_text(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

std::optional<std::string> write_all(int fd, const std::string& text, const std::string& path) {
  for (size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n > 0)
      at += size_t(n);
    else if (n < 0 && errno != EINTR)
      return errno_text("write", path);
  }
  return std::nullopt;
}

// Strictly: a file that is there but is not a progress file is a problem.
std::optional<std::string> read_strict(const std::string& path, PuzzleProgress& out) {
  out.clear();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return errno == ENOENT ? std::nullopt : std::optional(errno_text("read", path));
  if (!S_ISREG(st.st_mode)) return std::nullopt;  // a device: nothing recorded to read
  if (st.st_size > (1 << 20)) return path + " is larger than 1 MiB: not a progress file";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return errno_text("read", path);
  std::string text;
  char buf[1 << 14];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) text.append(buf, size_t(n));
  const int e = errno;
  ::close(fd);
  if (n < 0) return "cannot read " + path + ": " + std::strerror(e);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  const std::string kept =
      ": it is kept as it is (nothing was recorded); mend it, or move it away to start afresh";
  if (j.is_discarded()) return path + " is not valid JSON" + kept;
  if (!j.is_object()) return path + " is not a JSON object of puzzle ids" + kept;
  for (const auto& [id, v] : j.items()) {
    if (v != "solved" && v != "attempted")
      return path + ": puzzle '" + id + "' is " + v.dump() +
             ", neither \"solved\" nor \"attempted\"" + kept;
    out[id] = v.get<std::string>();
  }
  return std::nullopt;
}

}  // namespace

std::string puzzle_progress_path() {
  auto set = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
  };
  if (std::string p = set("TILESCOPE_PROGRESS"); !p.empty()) return p;
  if (std::string d = set("XDG_DATA_HOME"); !d.empty())
    return (fs::path(d) / "tilescope" / "puzzles.json").string();
  if (std::string h = set("HOME"); !h.empty())
    return (fs::path(h) / ".local" / "share" / "tilescope" / "puzzles.json").string();
  return kPuzzleProgressFile;
}

PuzzleProgress read_puzzle_progress(const std::string& path, std::string* problem) {
  PuzzleProgress out;
  const auto e = read_strict(path, out);
  if (problem) *problem = e.value_or("");
  if (e) out.clear();
  return out;
}

std::optional<std::string> record_puzzle_progress(const PuzzleGrade& g, const std::string& given) {
  std::error_code ec;
  // Through a link to the file it names: the link stays a link.
  const bool link = fs::is_symlink(given, ec);
  ec.clear();
  const fs::path path = link ? fs::canonical(given, ec) : fs::path(given);
  if (ec) return given + " is a link to nothing: " + ec.message();
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
    return path.string() + " is not a regular file (" +
           (S_ISFIFO(st.st_mode)  ? "a FIFO"
            : S_ISDIR(st.st_mode) ? "a folder"
                                  : "not a file") +
           "): the progress is not written there";
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!exists && !fs::exists(dir, ec)) {  // the data folder of a first grade
    fs::create_directories(dir, ec);
    if (ec) return "cannot make the folder " + dir.string() + ": " + ec.message();
    ::chmod(dir.c_str(), 0700);
  }
  // One writer at a time: the lock is the folder's (the file itself is
  // replaced by each write, so a lock on it would guard nothing).
  const int lock = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0) return errno_text("open the folder of", path.string());
  while (::flock(lock, LOCK_EX) != 0 && errno == EINTR) {
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }  // closing releases the lock
  } unlock{lock};
  PuzzleProgress p;
  if (auto e = read_strict(path.string(), p)) return e;
  record_grade(p, g);
  const std::string text = nlohmann::json(p).dump(2) + "\n";
  if (exists && S_ISCHR(st.st_mode)) {  // a device (/dev/null, /dev/full): directly, checked
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return errno_text("write", path.string());
    auto e = write_all(fd, text, path.string());
    if (::close(fd) != 0 && !e) e = errno_text("write", path.string());
    return e;
  }
  std::string name = ".";  // hidden, beside it: the rename stays on one file system
  name += path.filename().string();
  name += ".XXXXXX";
  std::string tmp = (dir / name).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return errno_text("write a new file in the folder of", path.string());
  auto e = write_all(fd, text, tmp);
  if (!e && ::fchmod(fd, exists ? (st.st_mode & 0777) : 0644) != 0) e = errno_text("write", tmp);
  if (!e && ::fsync(fd) != 0) e = errno_text("write", tmp);
  if (::close(fd) != 0 && !e) e = errno_text("write", tmp);
  if (!e && ::rename(tmp.c_str(), path.c_str()) != 0) e = errno_text("replace", path.string());
  if (e) ::unlink(tmp.c_str());
  return e;
}

}  // namespace ts

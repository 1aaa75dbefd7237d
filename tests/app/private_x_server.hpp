// The window tests' private X server: one Xvfb per test process, on a display
// number it picks itself (-displayfd), so that tests running in parallel never
// share or race for a display. xvfb-run is not used: its clean-up can fail
// under parallel runs and then replaces the app's exit status with its own (5).
//
//   setenv("DISPLAY", x_display().c_str(), 1);   // before starting tilescope
//   fs::path log = out_dir() / "run.log";         // a folder of this process's own
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <string>

namespace ts::app_test {

namespace fs = std::filesystem;

inline fs::path out_dir() {
  fs::path d = fs::temp_directory_path() / ("ts_app_tests_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

class PrivateXServer {
 public:
  PrivateXServer() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      // Its warnings (about /tmp/.X11-unix and the like) go to a log, not the test's output.
      const int log = ::open((out_dir() / "xvfb.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) ::dup2(log, 1), ::dup2(log, 2);
      const std::string fd = std::to_string(fds[1]);
      ::execl(TS_XVFB, TS_XVFB, "-displayfd", fd.c_str(), "-screen", "0", "1920x1080x24",
              "-nolisten", "tcp", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    // Xvfb writes the display number and a newline once it accepts clients.
    char buf[32] = {};
    size_t got = 0;
    while (got < sizeof buf - 1) {
      const ssize_t r = ::read(fds[0], buf + got, sizeof buf - 1 - got);
      if (r <= 0) break;
      got += size_t(r);
      if (std::memchr(buf, '\n', got)) break;
    }
    ::close(fds[0]);
    if (got > 0 && buf[0] >= '0' && buf[0] <= '9')
      display_.assign(1, ':').append(buf, std::strcspn(buf, "\n"));
  }
  ~PrivateXServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& display() const { return display_; }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

inline const std::string& x_display() {
  static PrivateXServer server;
  return server.display();
}

}  // namespace ts::app_test

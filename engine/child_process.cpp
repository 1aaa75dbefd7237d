// A limited child process (engine/child_process.hpp): fork and exec, the
// limits set between them, two pipes read with poll until the child exits or
// the deadline passes, then its whole process group killed.
#include "engine/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace ts {
namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_limit(int resource, uint64_t value) {
  if (!value) return;
  const rlimit r{rlim_t(value), rlim_t(value)};
  ::setrlimit(resource, &r);
}

// In the child, between fork and exec: only async-signal-safe calls (a
// threaded parent's child may not allocate).
[[noreturn]] void exec_child(char* const* args, char* const* env, int out_fd, int report_fd,
                             int error_fd, const ChildLimits& limits) {
  ::setpgid(0, 0);                     // its own group: the deadline kills whatever it started too
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // and TileScope killed takes it with it
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // dup2 clears it on 0
  if (null >= 0) ::dup2(null, 0);
  ::dup2(out_fd, 1);
  ::dup2(out_fd, 2);
  if (report_fd >= 0) ::dup2(report_fd, 3);  // dup2 clears close-on-exec
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  set_limit(RLIMIT_FSIZE, limits.file_bytes);
  set_limit(RLIMIT_AS, limits.memory_bytes);
  set_limit(RLIMIT_DATA, limits.data_bytes);
  set_limit(RLIMIT_CPU, limits.cpu_seconds);
  ::execve(args[0], args, env);
  const int e = errno;
  (void)!::write(error_fd, &e, sizeof e);
  ::_exit(127);
}

// Reads what is there without blocking; false at the end of the stream.
bool drain(int fd, std::string& into, uint64_t cap, uint64_t& dropped) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      const size_t keep =
          size_t(std::min<uint64_t>(uint64_t(n), cap - std::min<uint64_t>(cap, into.size())));
      into.append(buf, keep);
      dropped += uint64_t(n) - keep;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

}  // namespace

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    env.emplace_back(*e);
  return env;
}

std::string this_program() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* what = sigdescr_np(sig);
  std::string s = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (what) s += std::string(" (") + what + ")";
  return s;
}

ChildRun run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env_text,
                   const ChildLimits& limits) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(limits.seconds));
  ChildRun r;
  auto finish = [&] {
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
  };
  if (argv.empty()) {
    r.error = "nothing to run";
    return finish();
  }
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (const std::string& e : env_text)
    env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);

  int out[2] = {-1, -1}, report[2] = {-1, -1}, err[2] = {-1, -1};
  const bool want_report = limits.report_bytes > 0;
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      (want_report && ::pipe2(report, O_CLOEXEC) != 0)) {
    r.error = std::string("could not start ") + argv[0] + ": " + std::strerror(errno);
    for (int* fd : {&out[0], &out[1], &err[0], &err[1], &report[0], &report[1]})
      close_fd(*fd);
    return finish();
  }
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(args.data(), env.data(), out[1], report[1], err[1], limits);
  close_fd(out[1]);
  close_fd(report[1]);
  close_fd(err[1]);
  if (pid < 0) {
    r.error = std::string("could not start ") + argv[0] + ": " + std::strerror(errno);
    close_fd(out[0]), close_fd(report[0]), close_fd(err[0]);
    return finish();
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists
  int exec_errno = 0;
  ssize_t got;
  while ((got = ::read(err[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close_fd(err[0]);
  if (got == sizeof exec_errno) {
    ::waitpid(pid, nullptr, 0);
    close_fd(out[0]), close_fd(report[0]);
    r.error = std::string("could not start ") + argv[0] + ": " + std::strerror(exec_errno);
    return finish();
  }
  r.started = true;

  // Read until the child exits (a pipe may stay open in a process it left
  // behind: that one is killed with the group) or the deadline passes.
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  if (report[0] >= 0) ::fcntl(report[0], F_SETFL, O_NONBLOCK);
  bool exited = false;
  uint64_t report_dropped = 0;
  for (;;) {
    pollfd p[2];
    nfds_t n = 0;
    if (out[0] >= 0) p[n++] = {out[0], POLLIN, 0};
    if (report[0] >= 0) p[n++] = {report[0], POLLIN, 0};
    const auto left = deadline - Clock::now();
    if (!exited && left <= Clock::duration::zero()) {
      r.timed_out = true;
      break;
    }
    const int ms = int(std::clamp<int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(left).count() + 1, 0, 50));
    ::poll(p, n, exited ? 0 : ms);
    if (out[0] >= 0 && !drain(out[0], r.output, limits.output_bytes, r.dropped_bytes))
      close_fd(out[0]);
    if (report[0] >= 0 && !drain(report[0], r.report, limits.report_bytes, report_dropped))
      close_fd(report[0]);
    if (report_dropped) {
      r.report_overflow = true;
      break;
    }
    if (exited) break;  // drained once more after the exit
    // Exited, not yet reaped: the group id cannot be reused until waitpid.
    siginfo_t info{};
    if (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
      exited = true;
  }
  ::kill(-pid, SIGKILL);  // the group: whatever it started, a FIFO's blocked reader
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  close_fd(out[0]);
  close_fd(report[0]);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return finish();
}

}  // namespace ts

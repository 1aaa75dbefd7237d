// One compiler run, as hostile input may make it behave: it can hang (an
// #include of a FIFO, a compiler that never returns), print without end (a
// template bomb's diagnostics, #include </dev/zero>) or fill the disk. The
// compiler runs in a process group of its own, under limits, its output read
// from a pipe up to a cap, and the whole group is killed at the deadline, so
// no cc1plus is left behind.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/lesson_file_compile.hpp"

extern char** environ;

namespace ts::lesson_file_detail {
namespace {

using Clock = std::chrono::steady_clock;

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

// A positive number from the environment, or `fallback`; `problem` says why
// a value set there is refused.
double env_number(const char* name, double fallback, double most, std::string& problem) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end || !std::isfinite(x) || x <= 0 || x > most) {
    problem =
        std::string(name) + "=" + v + " is not a number above 0 and at most " + seconds_text(most);
    return fallback;
  }
  return x;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(char* const* args, char* const* env, int out_fd, int error_fd,
                             const CompileLimits& limits) {
  ::setpgid(0, 0);  // its own group: the deadline kills cc1plus and whatever else it starts
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // and TileScope killed takes the driver with it
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // dup2 clears it on 0
  if (null >= 0) ::dup2(null, 0);
  ::dup2(out_fd, 1);
  ::dup2(out_fd, 2);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  if (limits.file_bytes) {
    const rlimit fsize{limits.file_bytes, limits.file_bytes};
    ::setrlimit(RLIMIT_FSIZE, &fsize);
  }
  if (limits.memory_bytes) {
    const rlimit as{limits.memory_bytes, limits.memory_bytes};
    ::setrlimit(RLIMIT_AS, &as);
  }
  ::execve(args[0], args, env);
  const int e = errno;
  (void)!::write(error_fd, &e, sizeof e);
  ::_exit(127);
}

}  // namespace

CompileLimits compile_limits(std::string& problem) {
  CompileLimits l;
  l.seconds = env_number("TILESCOPE_COMPILE_SECONDS", l.seconds, 86400, problem);
  l.memory_bytes = uint64_t(env_number("TILESCOPE_COMPILE_MEMORY_MB", double(l.memory_bytes >> 20),
                                       1 << 24, problem))
                   << 20;
  return l;
}

CompilerRun run_compiler(const std::vector<std::string>& argv, const CompileLimits& limits,
                         Clock::time_point deadline) {
  CompilerRun r;
  const std::string name = argv[0].substr(argv[0].rfind('/') + 1);
  // Everything the child needs is made before fork: a threaded parent's
  // child may not allocate.
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment with the C locale: the messages are parsed.
  std::vector<std::string> env_text;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "LC_", 3) != 0 && std::strncmp(*e, "LANG", 4) != 0)
      env_text.emplace_back(*e);
  env_text.emplace_back("LC_ALL=C");
  std::vector<char*> env;
  for (std::string& e : env_text)
    env.push_back(e.data());
  env.push_back(nullptr);

  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    r.error = std::string("could not start ") + argv[0] + ": " + std::strerror(errno);
    close_fd(out[0]), close_fd(out[1]), close_fd(err[0]), close_fd(err[1]);
    return r;
  }
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(args.data(), env.data(), out[1], err[1], limits);
  close_fd(out[1]);
  close_fd(err[1]);
  if (pid < 0) {
    r.error = std::string("could not start ") + argv[0] + ": " + std::strerror(errno);
    close_fd(out[0]), close_fd(err[0]);
    return r;
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists
  int exec_errno = 0;
  ssize_t got;
  while ((got = ::read(err[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close_fd(err[0]);
  if (got == sizeof exec_errno) {
    ::waitpid(pid, nullptr, 0);
    close_fd(out[0]);
    r.error = std::string("could not start ") + argv[0] + ": " + std::strerror(exec_errno);
    return r;
  }

  // Read until the compiler exits (its pipe may stay open in a process it
  // left behind: that one is killed with the group) or the deadline passes.
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  char buf[1 << 16];
  bool eof = false, exited = false;
  auto drain = [&] {
    for (ssize_t n; !eof;) {
      n = ::read(out[0], buf, sizeof buf);
      if (n > 0) {
        const size_t keep = std::min(
            size_t(n), limits.output_bytes - std::min(limits.output_bytes, r.output.size()));
        r.output.append(buf, keep);
        r.dropped_bytes += uint64_t(n) - keep;
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        eof = true;
      } else if (errno == EAGAIN) {
        return;
      }
    }
  };
  while (!exited) {
    // Exited, not yet reaped: the group id cannot be reused until waitpid.
    siginfo_t info{};
    if (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
      exited = true;
    const auto left = deadline - Clock::now();
    if (!exited && left <= Clock::duration::zero()) {
      r.timed_out = true;
      break;
    }
    const int ms = int(std::clamp<int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(left).count() + 1, 0, 50));
    if (eof) {
      if (!exited) ::poll(nullptr, 0, ms);
      continue;
    }
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, exited ? 0 : ms) > 0 || exited) drain();
  }
  ::kill(-pid, SIGKILL);  // the group: cc1plus, as, a FIFO's blocked reader, what a script started
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  close_fd(out[0]);
  if (r.timed_out) {
    r.error = "the compiler (" + name + ") did not finish within " + seconds_text(limits.seconds) +
              " s, the compile time limit (TILESCOPE_COMPILE_SECONDS sets it): it was stopped, "
              "with every process it started";
    return r;
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (WIFSIGNALED(status))
    r.error = name + " was stopped by signal " + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ")";
  return r;
}

}  // namespace ts::lesson_file_detail

// A lesson file checked in a child process (app/core/lesson_check.hpp): the
// parent's spawn and wait, the child's compile, load and run, and the child's
// crash report, written from its signal handler with async-signal-safe calls only.
#include "app/core/lesson_check.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/sim/fiber_block.hpp"

extern char** environ;

namespace ts::app {
namespace fs = std::filesystem;

namespace {

constexpr const char* kCrashMarker = "TS-CHECK-CRASH line=";

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- the child's crash report ------------------------------------------------

// What the child is doing, for a crash outside the kernel.
std::atomic<const char*> g_phase{"starting"};
alignas(16) char g_alt_stack[1 << 16];

void put(char*& p, const char* end, const char* s) {
  while (*s && p < end)
    *p++ = *s++;
}
void put_int(char*& p, const char* end, long v) {
  char digits[24];
  int n = 0;
  const bool negative = v < 0;
  unsigned long u = negative ? 0ul - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    digits[n++] = char('0' + u % 10);
    u /= 10;
  } while (u && n < 23);
  if (negative && p < end) *p++ = '-';
  while (n > 0 && p < end)
    *p++ = digits[--n];
}
void put_dim(char*& p, const char* end, const sim::Uint3& d) {
  put(p, end, "(");
  put_int(p, end, long(d.x));
  put(p, end, ", ");
  put_int(p, end, long(d.y));
  put(p, end, ", ");
  put_int(p, end, long(d.z));
  put(p, end, ")");
}

const char* signal_words(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "a segmentation fault (SIGSEGV: a bad pointer, or an index far outside an array "
             "that is not read through the recording accessors)";
    case SIGBUS:
      return "a bus error (SIGBUS)";
    case SIGFPE:
      return "an arithmetic fault (SIGFPE: an integer division by zero?)";
    case SIGILL:
      return "an illegal instruction (SIGILL)";
    case SIGABRT:
      return "an abort (SIGABRT: a failed assertion, or an exception nobody caught)";
    default:
      return "a fatal signal";
  }
}

// "TS-CHECK-CRASH line=17: a segmentation fault (...) in the kernel: thread
// (3, 0, 0) of block (1, 0, 0), after line 17 (its last recorded access or barrier)"
void on_crash(int sig) {
  char buf[1024];
  char* p = buf;
  const char* end = buf + sizeof buf - 1;
  const sim::FiberBlock* block = sim::FiberBlock::active();
  const sim::ThreadBuiltins* b = sim::current_builtins;
  const int line = block && b ? block->line(block->current_thread()) : 0;
  put(p, end, kCrashMarker);
  put_int(p, end, line);
  put(p, end, ": ");
  put(p, end, signal_words(sig));
  if (block && b) {
    put(p, end, " in the kernel: thread ");
    put_dim(p, end, b->thread_idx);
    put(p, end, " of block ");
    put_dim(p, end, b->block_idx);
    if (line > 0) {
      put(p, end, ", after line ");
      put_int(p, end, line);
      put(p, end, " (its last recorded access or barrier)");
    } else {
      put(p, end, ", before its first recorded access");
    }
  } else {
    put(p, end, " while ");
    put(p, end, g_phase.load());
  }
  *p++ = '\n';
  (void)!::write(2, buf, size_t(p - buf));
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_crash_handlers() {
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof g_alt_stack;
  ::sigaltstack(&ss, nullptr);  // a fiber's stack overflow lands on its guard page
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    ::sigaction(sig, &sa, nullptr);
}

nlohmann::json file_json(const LessonFile& f) {
  nlohmann::json d = nlohmann::json::array();
  for (const CompilerDiagnostic& c : f.diagnostics)
    d.push_back({{"file", c.file},
                 {"line", c.line},
                 {"column", c.column},
                 {"severity", c.severity},
                 {"message", c.message}});
  return {{"ok", f.ok},
          {"path", f.path},
          {"lesson_id", f.lesson_id},
          {"error", f.error},
          {"cached", f.cached},
          {"seconds", f.seconds},
          {"compiler_output", f.compiler_output},
          {"diagnostics", d}};
}

LessonFile file_from_json(const nlohmann::json& j) {
  LessonFile f;
  f.ok = j.value("ok", false);
  f.path = j.value("path", "");
  f.lesson_id = j.value("lesson_id", "");
  f.error = j.value("error", "");
  f.cached = j.value("cached", false);
  f.seconds = j.value("seconds", 0.0);
  f.compiler_output = j.value("compiler_output", "");
  for (const auto& c : j.value("diagnostics", nlohmann::json::array()))
    f.diagnostics.push_back({c.value("file", ""), c.value("line", 0), c.value("column", 0),
                             c.value("severity", ""), c.value("message", "")});
  return f;
}

std::string program_path() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

}  // namespace

// ---- the request in one word -------------------------------------------------

std::string encode_request(const RunRequest& r) {
  std::string s;
  auto add = [&s](const char* k, uint64_t v) {
    s += std::string(k) + "=" + std::to_string(v) + ";";
  };
  for (const ParamField& f : kParamFields)
    s += std::string(f.name) + "=" + std::to_string(r.params.*f.field) + ";";
  add("barriers", r.barrier_mask.mask());
  add("traced", r.traced);
  add("backend", uint64_t(r.backend));
  add("schedule", uint64_t(r.schedule.kind));
  add("schedule_warps", r.schedule.skew_warps);
  add("schedule_steps", uint64_t(r.schedule.skew_steps));
  add("seed", r.schedule.seed);
  add("capacity", r.trace_capacity);
  add("input_seed", r.input_seed);
  add("inputs", uint64_t(r.inputs));
  add("skew_ns", uint64_t(r.skew_ns));
  add("skew_warps", r.skew_warps);
  return s;
}

std::optional<RunRequest> decode_request(const std::string& text) {
  RunRequest r;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ';');) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const std::string k = item.substr(0, eq);
    uint64_t v = 0;
    try {
      v = std::stoull(item.substr(eq + 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    bool known = false;
    for (const ParamField& f : kParamFields)
      if (k == f.name) r.params.*f.field = int(v), known = true;
    if (known) continue;
    if (k == "barriers")
      r.barrier_mask = BarrierSet(uint32_t(v));
    else if (k == "traced")
      r.traced = v != 0;
    else if (k == "backend")
      r.backend = BackendChoice(v);
    else if (k == "schedule")
      r.schedule.kind = ScheduleKind(v);
    else if (k == "schedule_warps")
      r.schedule.skew_warps = uint32_t(v);
    else if (k == "schedule_steps")
      r.schedule.skew_steps = int(v);
    else if (k == "seed")
      r.schedule.seed = v;
    else if (k == "capacity")
      r.trace_capacity = v;
    else if (k == "input_seed")
      r.input_seed = v;
    else if (k == "inputs")
      r.inputs = InputKind(v);
    else if (k == "skew_ns")
      r.skew_ns = int(v);
    else if (k == "skew_warps")
      r.skew_warps = uint32_t(v);
    else
      return std::nullopt;
  }
  return r;
}

// ---- the child ---------------------------------------------------------------

int lesson_check_child_main(int argc, char** argv) {
  // argv[0] is --check-lesson-file here: PATH [REQUEST]
  if (argc < 2) {
    std::fprintf(stderr, "tilescope: %s PATH [REQUEST]\n", kCheckLessonFileFlag);
    return 2;
  }
  install_crash_handlers();
  const std::string path = argv[1];
  std::optional<RunRequest> req;
  if (argc >= 3 && !(req = decode_request(argv[2]))) {
    std::fprintf(stderr, "tilescope: %s: the request '%s' does not parse\n", kCheckLessonFileFlag,
                 argv[2]);
    return 2;
  }
  g_phase = "loading the plug-in and calling Lesson::descriptor() (host code of the lesson file)";
  const LessonFile f = load_lesson_file(path);
  nlohmann::json out = file_json(f);
  if (f.ok && req) {
    g_phase =
        "preparing or checking the run: the descriptor's arrays, geometry, check, counts or "
        "reference (host code of the lesson file)";
    req->lesson_id = f.lesson_id;
    const RunResult r = run(*req);
    out["ran"] = true;
    out["run_error"] = r.ok ? "" : r.error;
  }
  g_phase = "finishing";
  std::printf("%s\n", out.dump().c_str());
  std::fflush(stdout);
  return 0;
}

// ---- the parent --------------------------------------------------------------

LessonCheck check_lesson_file_in_child(const std::string& path, const RunRequest* req,
                                       double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  LessonCheck c;
  c.file.path = path;
  auto failed = [&](const std::string& why) {
    c.file.ok = false;
    c.file.error = why;
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
  };
  const std::string exe = program_path();
  if (exe.empty()) return failed("cannot find this program (/proc/self/exe) to check " + path);
  static std::atomic<int> counter{0};
  const fs::path tmp =
      fs::temp_directory_path() /
      ("tilescope-check-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  const std::string out_path = tmp.string() + ".out", err_path = tmp.string() + ".err";
  std::vector<std::string> args = {exe, kCheckLessonFileFlag, path};
  if (req) args.push_back(encode_request(*req));
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&io, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&io, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int started = posix_spawn(&pid, exe.c_str(), &io, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&io);
  if (started != 0)
    return failed("could not start the checking process for " + path + ": " +
                  std::strerror(started));
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(timeout_s)) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string out = read_all(out_path), err = read_all(err_path);
  std::error_code ec;
  fs::remove(out_path, ec);
  fs::remove(err_path, ec);

  if (timed_out) {
    c.crashed = true;
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.0f", timeout_s);
    return failed(path + ": checking the lesson file did not finish in " + secs +
                  " s (a loop that never ends in its host code: the descriptor, its "
                  "reference or check?); it was stopped");
  }
  if (WIFSIGNALED(status)) {
    c.crashed = true;
    std::string where = "signal " + std::to_string(WTERMSIG(status));
    int line = 0;
    if (const size_t at = err.find(kCrashMarker); at != std::string::npos) {
      const size_t colon = err.find(": ", at);
      line = std::atoi(err.c_str() + at + std::strlen(kCrashMarker));
      where = err.substr(colon + 2, err.find('\n', colon) - colon - 2);
    }
    c.file.path = fs::absolute(path, ec).lexically_normal().string();
    if (line > 0)  // the Source panel marks the line
      c.file.diagnostics.push_back({c.file.path, line, 0, "error",
                                    "the kernel crashed after this "
                                    "line"});
    return failed(c.file.path + ": the lesson crashed its check: " + where);
  }
  const size_t brace = out.rfind("\n{") != std::string::npos ? out.rfind("\n{") + 1 : out.find('{');
  nlohmann::json j;
  try {
    if (brace == std::string::npos) throw std::runtime_error("no result");
    j = nlohmann::json::parse(out.substr(brace));
  } catch (const std::exception&) {
    return failed(path + ": the checking process ended (exit code " +
                  std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                  ") without a result: " + err.substr(0, 2000));
  }
  c.file = file_from_json(j);
  c.run_error = j.value("run_error", "");
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace ts::app

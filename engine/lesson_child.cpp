// The lesson child (engine/lesson_child.hpp): the parent's start and decoding,
// the child's load and runs, and the child's last words (a fault, an exit)
// written from a signal handler or an exit hook with async-signal-safe calls.
//
// The child reports records on descriptor 3: a tag byte, a 64-bit length,
// the bytes. 'F' the loaded file (JSON), 'S' a run starts (its number), 'R'
// its result (engine/run_wire.hpp), 'X' what ended the process early (text),
// 'D' every request answered.
#include "engine/lesson_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "engine/child_process.hpp"
#include "engine/lesson_file_compile.hpp"
#include "engine/run_wire.hpp"
#include "engine/sim/fiber_block.hpp"

namespace ts {
namespace {

constexpr int kReportFd = 3;
constexpr const char* kStopAtFailure = "--stop-at-failure";
constexpr const char* kCachedOnly = "--cached-only";
constexpr char kFile = 'F', kStart = 'S', kResult = 'R', kLastWords = 'X', kDone = 'D';

std::atomic<bool> g_in_child{false};
std::atomic<bool> g_done{false};
// What the child is doing, for last words outside the kernel.
std::atomic<const char*> g_phase{"starting"};

// ---- records, written with write(2) only ----------------------------------------

void write_all(const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(kReportFd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w, n -= size_t(w);
  }
}
void write_record(char tag, const char* bytes, uint64_t n) {
  char head[9];
  head[0] = tag;
  std::memcpy(head + 1, &n, sizeof n);
  write_all(head, sizeof head);
  write_all(bytes, size_t(n));
}
void write_record(char tag, const std::string& s) {
  write_record(tag, s.data(), s.size());
}

// ---- last words: a signal or an exit, where the kernel was ---------------------

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
      return "faulted: a segmentation fault (SIGSEGV: a bad pointer, an index far outside an "
             "array, or a local array larger than a simulated thread's stack)";
    case SIGBUS:
      return "faulted: a bus error (SIGBUS)";
    case SIGFPE:
      return "faulted: an arithmetic fault (SIGFPE: an integer division by zero?)";
    case SIGILL:
      return "faulted: an illegal instruction (SIGILL; __trap()?)";
    case SIGABRT:
      return "aborted (SIGABRT: abort(), a failed assertion, or an exception nobody caught)";
    case SIGXCPU:
      return "used up its processor time (SIGXCPU)";
    case SIGXFSZ:
      return "wrote a file larger than allowed (SIGXFSZ)";
    default:
      return "was stopped by a fatal signal";
  }
}

// "<what> in the kernel: thread (3, 0, 0) of block (1, 0, 0), after line 17 (its last
// recorded access or barrier) [line=17]", or "<what> while <phase>".
size_t last_words(char* buf, size_t size, const char* what) {
  char* p = buf;
  const char* end = buf + size - 1;
  const sim::FiberBlock* block = sim::FiberBlock::active();
  const sim::ThreadBuiltins* b = sim::current_builtins;
  const int line = block && b ? block->line(block->current_thread()) : 0;
  put(p, end, what);
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
  put(p, end, " [line=");
  put_int(p, end, line);
  put(p, end, "]");
  return size_t(p - buf);
}

void on_fatal_signal(int sig) {
  char buf[1024];
  char* p = buf;
  put(p, buf + 64, "the lesson's code ");
  const size_t n = size_t(p - buf) + last_words(p, sizeof buf - size_t(p - buf), signal_words(sig));
  write_record(kLastWords, buf, n);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void on_process_exit(int status, void*) {
  if (g_done.load()) return;
  char buf[1024];
  char* p = buf;
  const char* end = buf + 128;
  put(p, end, "the lesson's code called exit(");
  put_int(p, end, status);
  put(p, end, ")");
  const size_t n = size_t(p - buf) + last_words(p, sizeof buf - size_t(p - buf), "");
  write_record(kLastWords, buf, n);
}

void install_last_words() {
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof g_alt_stack;
  ::sigaltstack(&ss, nullptr);  // a fiber's stack overflow lands on its guard page
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGXFSZ})
    ::sigaction(sig, &sa, nullptr);
  ::on_exit(on_process_exit, nullptr);
}

// ---- the loaded file as JSON -------------------------------------------------------

nlohmann::json file_json(const LessonFile& f) {
  nlohmann::json d = nlohmann::json::array();
  for (const CompilerDiagnostic& c : f.diagnostics)
    d.push_back({{"file", c.file},
                 {"line", c.line},
                 {"column", c.column},
                 {"severity", c.severity},
                 {"message", c.message}});
  return {{"ok", f.ok},       {"path", f.path},       {"lesson_id", f.lesson_id},
          {"error", f.error}, {"cached", f.cached},   {"cache_note", f.cache_note},
          {"gpu", f.gpu},     {"seconds", f.seconds}, {"compiler_output", f.compiler_output},
          {"diagnostics", d}};
}

LessonFile file_from_json(const nlohmann::json& j) {
  LessonFile f;
  f.ok = j.value("ok", false);
  f.path = j.value("path", "");
  f.lesson_id = j.value("lesson_id", "");
  f.error = j.value("error", "");
  f.cached = j.value("cached", false);
  f.cache_note = j.value("cache_note", "");
  f.gpu = j.value("gpu", false);
  f.seconds = j.value("seconds", 0.0);
  f.compiler_output = j.value("compiler_output", "");
  for (const auto& c : j.value("diagnostics", nlohmann::json::array()))
    f.diagnostics.push_back({c.value("file", ""), c.value("line", 0), c.value("column", 0),
                             c.value("severity", ""), c.value("message", "")});
  return f;
}

std::string params_text(const Params& p) {
  std::string s;
  for (const ParamField& f : kParamFields)
    if (p.*f.field)
      s += (s.empty() ? "" : " ") + std::string(f.name) + "=" + std::to_string(p.*f.field);
  return s.empty() ? "the defaults" : s;
}

// The records of a child's report, in order; false where the bytes break off.
struct Record {
  char tag;
  std::string_view bytes;
};
bool split_records(std::string_view report, std::vector<Record>& out) {
  size_t at = 0;
  while (at < report.size()) {
    uint64_t n = 0;
    if (report.size() - at < 9) return false;
    std::memcpy(&n, report.data() + at + 1, sizeof n);
    if (n > report.size() - at - 9) return false;
    out.push_back({report[at], report.substr(at + 9, size_t(n))});
    at += 9 + size_t(n);
  }
  return true;
}

}  // namespace

bool in_lesson_child() {
  return g_in_child.load();
}

double lesson_run_seconds(std::string* problem) {
  const char* v = std::getenv("TILESCOPE_RUN_SECONDS");
  if (!v || !*v) return 60;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end || !std::isfinite(x) || x <= 0 || x > 86400) {
    if (problem)
      *problem = std::string("TILESCOPE_RUN_SECONDS=") + v +
                 " is not a number of seconds above 0 and at most 86400";
    return 60;
  }
  return x;
}

// ---- the request in one word -------------------------------------------------------

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
  add("schedule_steps", uint64_t(uint32_t(r.schedule.skew_steps)));
  add("seed", r.schedule.seed);
  add("capacity", r.trace_capacity);
  add("input_seed", r.input_seed);
  add("inputs", uint64_t(r.inputs));
  add("skew_ns", uint64_t(uint32_t(r.skew_ns)));
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
    else if (k == "backend" && v <= uint64_t(BackendChoice::Sim))
      r.backend = BackendChoice(v);
    else if (k == "schedule" && v <= uint64_t(ScheduleKind::Random))
      r.schedule.kind = ScheduleKind(v);
    else if (k == "schedule_warps")
      r.schedule.skew_warps = uint32_t(v);
    else if (k == "schedule_steps")
      r.schedule.skew_steps = int(int32_t(uint32_t(v)));
    else if (k == "seed")
      r.schedule.seed = v;
    else if (k == "capacity")
      r.trace_capacity = v;
    else if (k == "input_seed")
      r.input_seed = v;
    else if (k == "inputs" && v <= uint64_t(InputKind::Uniform))
      r.inputs = InputKind(v);
    else if (k == "skew_ns")
      r.skew_ns = int(int32_t(uint32_t(v)));
    else if (k == "skew_warps")
      r.skew_warps = uint32_t(v);
    else
      return std::nullopt;
  }
  return r;
}

// ---- the child -------------------------------------------------------------------

int lesson_child_main(int argc, char** argv) {
  if (argc < 2 || ::fcntl(kReportFd, F_GETFD) < 0) {
    std::fprintf(stderr, "%s PATH [REQUEST ...]: started by TileScope itself, with a report pipe\n",
                 kLessonChildFlag);
    return 2;
  }
  g_in_child = true;
  // A kernel's printf reaches the parent line by line, so what it printed
  // before an abort or a fault is not lost in a buffer with the process.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  install_last_words();
  std::vector<RunRequest> requests;
  int first = 2;
  bool stop_at_failure = false, cached_only = false;
  for (; first < argc && std::strncmp(argv[first], "--", 2) == 0; ++first) {
    stop_at_failure = stop_at_failure || std::strcmp(argv[first], kStopAtFailure) == 0;
    cached_only = cached_only || std::strcmp(argv[first], kCachedOnly) == 0;
  }
  for (int i = first; i < argc; ++i) {
    std::optional<RunRequest> r = decode_request(argv[i]);
    if (!r) {
      std::fprintf(stderr, "%s: the request '%s' does not parse\n", kLessonChildFlag, argv[i]);
      return 2;
    }
    requests.push_back(*r);
  }
  g_phase =
      "loading the plug-in and calling Lesson::descriptor() (the lesson file's static "
      "constructors and host code)";
  const LessonFile f = load_lesson_file(argv[1], cached_only);
  write_record(kFile, file_json(f).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  for (size_t k = 0; f.ok && k < requests.size(); ++k) {
    const uint64_t number = k;
    write_record(kStart, reinterpret_cast<const char*>(&number), sizeof number);
    g_phase =
        "preparing or checking a run: the descriptor's arrays, geometry, check, counts or "
        "reference (host code of the lesson file)";
    RunRequest req = requests[k];
    req.lesson_id = f.lesson_id;
    RunResult r;
    try {
      r = run(req);
    } catch (const std::exception& e) {
      r.ok = false;
      r.error = std::string("the lesson's code threw an exception: ") + e.what();
    }
    write_record(kResult, encode_run_result(r));
    if (stop_at_failure && !r.ok) break;
  }
  g_phase = "finishing";
  std::fflush(stdout);
  g_done = true;
  write_record(kDone, "", 0);
  return 0;
}

// ---- the parent ------------------------------------------------------------------

LessonChildResult run_lesson_file_in_child(const std::string& path,
                                           const std::vector<RunRequest>& requests,
                                           const LessonChildOptions& options) {
  LessonChildResult c;
  c.file.path = path;
  std::string problem;
  const double run_seconds = lesson_run_seconds(&problem);
  const lesson_file_detail::CompileLimits compile = lesson_file_detail::compile_limits(problem);
  const std::string exe = this_program();
  auto fail_all = [&](const std::string& why) {
    c.failure = why;
    c.file.ok = false;
    if (c.file.error.empty()) c.file.error = why;
    c.runs.assign(requests.size(), RunResult{});
    for (RunResult& r : c.runs)
      r.error = why;
    return c;
  };
  if (!problem.empty()) return fail_all(problem);
  if (exe.empty()) return fail_all("cannot find this program (/proc/self/exe) to run " + path);

  std::vector<std::string> argv = {exe, kLessonChildFlag, path};
  if (options.stop_at_failure) argv.push_back(kStopAtFailure);
  if (options.compiled) argv.push_back(kCachedOnly);
  uint64_t report = 64u << 20;
  for (const RunRequest& r : requests) {
    argv.push_back(encode_request(r));
    report += (r.traced ? r.trace_capacity * sizeof(Event) : 0) + (64u << 20);
  }
  ChildLimits limits;
  limits.seconds = (options.compiled ? 0 : compile.seconds) + run_seconds;
  // Its memory: the heap and private mappings, not the address space (the
  // child may initialise CUDA, which reserves far more than it uses).
  // The simulator's fiber stacks are reserved (512 KiB of local memory a
  // thread, a 1024-thread block per worker) and count here too.
  const uint64_t workers = std::max(1u, std::thread::hardware_concurrency());
  limits.data_bytes = (uint64_t(8) << 30) + workers * (uint64_t(1) << 30) + report * 3;
#if defined(TS_SANITIZED) || defined(__SANITIZE_ADDRESS__)
  limits.data_bytes = 0;  // AddressSanitizer's shadow is terabytes of private mappings
#endif
  limits.file_bytes = compile.file_bytes;
  limits.output_bytes = 64u << 10;
  limits.report_bytes = report;
  const ChildRun run = run_child(argv, current_environment(), limits);
  c.seconds = run.seconds;
  c.output = run.output;
  if (!run.started) return fail_all(run.error);

  std::vector<Record> records;
  const bool whole = split_records(run.report, records);
  bool loaded = false, done = false;
  int running = -1;
  std::string last_words;
  for (const Record& rec : records) {
    if (rec.tag == kFile && !loaded) {
      const nlohmann::json j = nlohmann::json::parse(rec.bytes, nullptr, false);
      if (j.is_object()) c.file = file_from_json(j), loaded = true;
    } else if (rec.tag == kStart && rec.bytes.size() == sizeof(uint64_t)) {
      uint64_t k = 0;
      std::memcpy(&k, rec.bytes.data(), sizeof k);
      running = k == c.runs.size() && k < requests.size() ? int(k) : -1;
    } else if (rec.tag == kResult && running >= 0) {
      std::string why;
      std::optional<RunResult> r = decode_run_result(rec.bytes, &why);
      if (!r) {
        r.emplace();
        r->error = "the run's result from the child process does not parse: " + why;
      } else if (r->ok && !(r->trace.config.params == requests[size_t(running)].params)) {
        r->ok = false;
        r->error = "the child process answered a run that was not asked for";
      }
      if (r->ok) r->trace.config.lesson_id = requests[size_t(running)].lesson_id;
      c.runs.push_back(std::move(*r));
      running = -1;
    } else if (rec.tag == kLastWords) {
      last_words.assign(rec.bytes);
    } else if (rec.tag == kDone) {
      done = true;
    }
  }
  if (done && whole && loaded) {
    const size_t answered = c.runs.size();
    c.runs.resize(requests.size());
    for (size_t k = answered; k < requests.size(); ++k)
      c.runs[k].error = !c.file.ok ? c.file.error : "not run: an earlier run failed";
    return c;
  }

  // It ended early: say how, in the words of its last record where it left one.
  const std::string during = running >= 0 ? " (run " + std::to_string(running + 1) + " of " +
                                                std::to_string(requests.size()) + ", at " +
                                                params_text(requests[size_t(running)].params) + ")"
                                          : std::string();
  if (const size_t at = last_words.rfind(" [line="); at != std::string::npos) {
    c.failure_line = std::atoi(last_words.c_str() + at + 7);
    last_words.erase(at);
  }
  if (run.timed_out) {
    c.crashed = true;
    c.failure = "the lesson file did not finish within " + seconds_text(limits.seconds) +
                " s (the run time limit, TILESCOPE_RUN_SECONDS" +
                (options.compiled ? std::string() : ", and the compile's") +
                "): a loop that never ends? It was stopped" + during;
  } else if (run.report_overflow) {
    c.crashed = true;
    c.failure = "the lesson file's child process reported more than " +
                std::to_string(limits.report_bytes >> 20) + " MiB: it was stopped" + during;
  } else if (!last_words.empty()) {
    c.crashed = run.signal != 0;
    c.exited = run.signal == 0;
    c.failure = last_words + during;
  } else if (run.signal) {
    c.crashed = true;
    c.failure = "the lesson file's process was ended by " + signal_text(run.signal) +
                (run.signal == SIGKILL ? " (out of memory?)" : "") + during;
  } else {
    c.exited = true;
    c.failure = "the lesson's code ended the process (exit code " + std::to_string(run.exit_code) +
                ") before it finished: a call to _exit() or quick_exit()?" + during;
  }
  if (!loaded) {
    c.file.ok = false;
    c.file.path = path;
  }
  if (!c.file.ok || !loaded) c.file.error = path + ": " + c.failure;
  const size_t finished = c.runs.size();
  c.runs.resize(requests.size());
  for (size_t k = finished; k < requests.size(); ++k)
    c.runs[k].error = k == finished ? c.failure : "not run: an earlier run ended the process";
  return c;
}

void compile_side_by_side(const std::vector<std::string>& paths, unsigned jobs) {
  if (paths.empty()) return;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>(jobs, paths.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t i = next++; i < paths.size(); i = next++)
        run_lesson_file_in_child(paths[i], {});
    });
  for (std::thread& t : pool)
    t.join();
}

}  // namespace ts

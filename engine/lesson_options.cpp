#include "engine/lesson_options.hpp"

#include <algorithm>
#include <memory>
#include <sstream>
#include <string_view>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ts {
namespace {

std::optional<long long> parse_int(const std::string& s, int base = 10) {
  long long v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) b += 2;
  auto r = std::from_chars(b, e, v, base);
  if (r.ec != std::errc() || r.ptr != e || b == e) return std::nullopt;
  return v;
}

std::string barrier_names(const LessonInfo& v) {
  if (v.barriers.empty()) return std::string(v.id) + " has no barriers";
  std::string s = std::string(v.id) + " has barrier";
  s += v.barriers.size() > 1 ? "s " : " ";
  for (size_t i = 0; i < v.barriers.size(); ++i) {
    if (i) s += i + 1 == v.barriers.size() ? " and " : ", ";
    s += std::to_string(v.barriers[i].id) + " (line " + std::to_string(v.barriers[i].line) + ")";
  }
  return s;
}

std::optional<std::string> barrier_bits(const LessonInfo& v, const char* option,
                                        const std::vector<std::string>& given, uint32_t& bits) {
  bits = 0;
  // Split here rather than by CLI11, which drops empty items: "1,,2" is a
  // typo, not the list 1,2.
  std::vector<std::string> items;
  for (const auto& arg : given) {
    if (arg.empty())  // an empty list would silently mean "no barrier"
      return std::string(option) + " '': give all, none or barrier numbers like 1,2; " +
             barrier_names(v);
    for (size_t at = 0; at <= arg.size();) {
      const size_t end = std::min(arg.find(',', at), arg.size());
      items.push_back(arg.substr(at, end - at));
      if (items.back().empty())
        return std::string(option) + " '" + arg +
               "': an empty item between commas; give all, none or barrier numbers like 1,2; " +
               barrier_names(v);
      at = end + 1;
    }
  }
  for (const auto& item : items) {
    if (item == "none") continue;
    if (item == "all") {  // `--barriers all`: keep every one
      bits = all_barriers(v);
      continue;
    }
    const auto id = parse_int(item);
    if (!id) return "'" + item + "' is not a barrier number; " + barrier_names(v);
    if (*id < 1 || *id > int(v.barriers.size()))
      return "there is no barrier " + item + ": " + barrier_names(v);
    bits |= 1u << (*id - 1);
  }
  return std::nullopt;
}

std::string out_of_range(const std::string& value, const std::string& lo, const std::string& hi) {
  return value + " is out of range: give a whole number from " + lo + " to " + hi;
}

// The widest range any lesson allows a parameter: what the command line takes
// before the lesson and the device narrow it. (Once the lessons declare their
// ranges, this is the fold of their min and max.)
struct ParamRange {
  long long lo, hi;
};
ParamRange widest_range(const ParamField& f) {
  const uint32_t bit = f.bit;
  if (bit & (kUsesM | kUsesK | kUsesN)) return {1, kMaxMatrixSide};
  if (bit & kUsesLength) return {1, kMaxLength};
  if (bit & kUsesRadius) return {0, kMaxStencilRadius};
  return {1, kMaxBlockThreads};  // tile, block: threads per block bound both
}

// What the lessons that read a parameter call it: a line per meaning
// ("- n (matrix size): A, B and C are n x n"), each once.
std::string parameter_help(std::string_view name) {
  std::vector<std::string> lines;
  for (const LessonInfo& v : all_lessons())
    for (const ParamText& t : v.param_text)
      if (t.name == name) {
        const std::string_view hint = t.hint;
        const std::string line =
            "- " + (hint.rfind(t.label, 0) == 0 ? std::string(hint)
                                                : std::string(t.label) + ": " + t.hint);
        if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
      }
  std::string help = "in the lessons that read it:";
  for (const std::string& l : lines)
    help += "\n" + l;
  return help;
}

}  // namespace

CLI::Validator whole_number(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        long long v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ptr != s.data() + s.size() || s.empty() ||
            (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
          return "'" + s + "' is not a whole number: give one from " + std::to_string(lo) + " to " +
                 std::to_string(hi);
        if (r.ec == std::errc::result_out_of_range || v < lo || v > hi)
          return out_of_range(s, std::to_string(lo), std::to_string(hi));
        return {};
      },
      "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

CLI::Validator unsigned_number(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        unsigned long long v = 0;
        // from_chars takes no sign for unsigned types: "-1" fails here instead of wrapping.
        const bool negative = !s.empty() && s[0] == '-' && s.size() > 1 &&
                              std::isdigit(static_cast<unsigned char>(s[1]));
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (!negative && (r.ptr != s.data() + s.size() || s.empty() ||
                          (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)))
          return "'" + s + "' is not a whole number: give one from " + std::to_string(lo) + " to " +
                 std::to_string(hi);
        if (negative || r.ec == std::errc::result_out_of_range || v < lo || v > hi)
          return out_of_range(s, std::to_string(lo), std::to_string(hi));
        return {};
      },
      "UINT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

CLI::Validator real_number(double lo, double hi, const std::string& what) {
  const auto text = [](double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%.10g", v);
    return std::string(s);
  };
  const std::string range = "give " + what + " from " + text(lo) + " to " + text(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        // strtod takes "nan", "inf" and "1e999" (as infinity): all refused here.
        char* end = nullptr;
        errno = 0;
        const double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || std::isnan(v))
          return "'" + s + "' is not a number: " + range;
        if (!std::isfinite(v) || errno == ERANGE || v < lo || v > hi)
          return s + " is out of range: " + range;
        return {};
      },
      "NUMBER in [" + text(lo) + " - " + text(hi) + "]");
}

std::optional<uint32_t> parse_warp_mask(const std::string& s) {
  if (s == "odd") return 0xAAAAAAAAu;
  if (s == "even") return 0x55555555u;
  if (s == "all") return 0xFFFFFFFFu;
  if (s == "none") return 0u;
  if (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0) {
    auto v = parse_int(s, 16);
    if (!v || *v < 0 || *v > 0xFFFFFFFFll) return std::nullopt;
    return uint32_t(*v);
  }
  uint32_t m = 0;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    auto v = parse_int(s.substr(start, end - start));
    if (!v || *v < 0 || *v > 31) return std::nullopt;
    m |= 1u << *v;
    start = end + 1;
  }
  return m;
}

namespace {

// Words of `text` in lines of at most `width` characters; its own line
// breaks kept, a line that starts "- " (an item) continued under its text.
std::string wrap_words(const std::string& text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const bool item = text.compare(start, 2, "- ") == 0;
    size_t col = 0;
    size_t i = start;
    while (i < end) {
      size_t j = text.find(' ', i);
      if (j == std::string::npos || j > end) j = end;
      const size_t len = j - i;
      if (len > 0) {
        if (col > 0 && col + 1 + len > width) {
          out += item ? "\n  " : "\n";
          col = item ? 2 : 0;
        } else if (col > 0) {
          out += ' ';
          ++col;
        }
        out.append(text, i, len);
        col += len;
      }
      i = j + 1;
    }
    if (end >= text.size()) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

constexpr size_t kHelpWidth = 80;

// Option texts wrapped under their column, to 80 characters a line; a name
// whose list of values is longer than a line continues on the next ones.
class ReadableHelp : public CLI::Formatter {
 public:
  ReadableHelp() { column_width(32); }
  std::string make_option(const CLI::Option* opt, bool positional) const override {
    const std::string name = make_option_name(opt, positional) + make_option_opts(opt);
    std::string wrapped;
    size_t col = 2;  // format_help indents the name by two
    for (size_t i = 0; i < name.size();) {
      size_t j = name.find(',', i);
      j = j == std::string::npos ? name.size() : j + 1;
      if (col + (j - i) > kHelpWidth && col > 8) {
        wrapped += "\n        ";
        col = 8;
      }
      wrapped.append(name, i, j - i);
      col += j - i;
      i = j;
    }
    std::stringstream out;
    CLI::detail::format_help(out, wrapped, make_option_desc(opt), get_column_width());
    return out.str();
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    return wrap_words(CLI::Formatter::make_option_desc(opt), kHelpWidth - get_column_width());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             wrap_words(sub->get_description(), kHelpWidth - get_column_width()),
                             get_column_width());
    return out.str();
  }
  std::string make_footer(const CLI::App* app) const override {
    return wrap_words(CLI::Formatter::make_footer(app), kHelpWidth);
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_words(CLI::Formatter::make_description(app), kHelpWidth);
  }
};

}  // namespace

void use_readable_help(CLI::App& app) {
  app.formatter(std::make_shared<ReadableHelp>());
}

void LessonOptions::add_to(CLI::App& app, Naming naming) {
  given_.clear();
  use_readable_help(app);
  auto keep_track = [&](CLI::Option* o) {
    given_.push_back(o);
    return o;
  };
  CLI::Option* id =
      naming == Naming::LessonFlag
          ? app.add_option(
                "--lesson", lesson_id,
                "Lesson id, e.g. " + std::string(ts::default_lesson().id) + " (tilescope-cli list)")
          : app.add_option("lesson", lesson_id,
                           naming == Naming::Positional
                               ? "Lesson id (tilescope-cli list), or give --lesson-file"
                               : "Lesson id (tilescope-cli list)");
  if (naming == Naming::LessonFlag) keep_track(id);
  id->excludes(keep_track(app.add_option(
      "--lesson-file", lesson_file,
      "A lesson of your own: a header in the form of lessons/*.hpp (kernel, TS_KERNEL_BODY, "
      "struct Lesson), anywhere on disk, compiled with TileScope's compiler and run on the "
      "simulator as lesson file.<its name>")));
  // One option per parameter (kParamFields), within the widest range any
  // lesson allows; check_run() narrows it for the lesson and the device.
  param_options_.clear();
  for (const ParamField& f : kParamFields) {
    const ParamRange r = widest_range(f);
    param_options_.push_back(keep_track(
        app.add_option(std::string("--") + f.name, params.*f.field, parameter_help(f.name))
            ->check(whole_number(r.lo, r.hi))));
  }
  o_keep = keep_track(
      app.add_option("--barriers", keep, "Keep only these barriers: all, none or a list like 1,2"));
  o_drop = keep_track(app.add_option("--no-barrier", drop, "Remove these barriers, e.g. 2 or 1,2"));
  o_keep->excludes(o_drop);
  keep_track(app.add_option("--backend", backend, "auto (GPU if usable), cuda or sim")
                 ->check(CLI::IsMember({"auto", "cuda", "sim"}))
                 ->capture_default_str());
  keep_track(app.add_option("--schedule", schedule, "Simulator: lockstep, skew or random")
                 ->check(CLI::IsMember({"lockstep", "skew", "random"}))
                 ->capture_default_str());
  o_seed = keep_track(app.add_option("--seed", seed, "Simulator: seed of the random schedule")
                          ->check(unsigned_number()));
  o_skew_warps = keep_track(
      app.add_option("--skew-warps", skew_warps, "Warps to delay: odd, even, all, 0xAA or 1,3")
          ->capture_default_str());
  o_skew_steps = keep_track(
      app.add_option("--skew-steps", skew_steps, "Simulator: steps the skewed warps fall behind")
          ->check(whole_number(0, 1 << 20))
          ->capture_default_str());
  o_skew_ns = keep_track(
      app.add_option("--skew-ns", skew_ns, "GPU only: nanoseconds the skewed warps sleep")
          ->check(whole_number(0, 1'000'000)));
  keep_track(app.add_option("--capacity", capacity, "Trace capacity in events (40 bytes each)")
                 ->check(unsigned_number(1))
                 ->capture_default_str());
  keep_track(app.add_option("--inputs", inputs, "int (small integers) or uniform in [-1, 1]")
                 ->check(CLI::IsMember({"int", "uniform"}))
                 ->capture_default_str());
  keep_track(app.add_option("--input-seed", input_seed, "Seed of the inputs")
                 ->check(unsigned_number())
                 ->capture_default_str());
}

bool LessonOptions::any_given() const {
  for (const CLI::Option* o : given_)
    if (o->count()) return true;
  return false;
}

bool LessonOptions::given(const std::string& name) const {
  for (const CLI::Option* o : given_)
    if (o->get_name() == name) return o->count() > 0;
  return false;
}

std::optional<std::string> LessonOptions::to_request(RunRequest& req,
                                                     std::vector<std::string>* notes) const {
  auto note = [&](std::string s) {
    if (notes) notes->push_back(std::move(s));
  };
  std::string name = lesson_id.empty() ? default_lesson : lesson_id;
  if (!lesson_file.empty()) {
    if (!file_) {
      file_ = load_lesson_file(lesson_file);
      if (!file_->cache_note.empty()) note(file_->cache_note);
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.2f", file_->seconds);
      if (file_->ok)
        note(file_->path +
             (file_->cached ? ": the lesson from the plug-in cache in "
                            : ": compiled into a plug-in in ") +
             secs + " s, lesson " + file_->lesson_id);
      for (const CompilerDiagnostic& d : file_->diagnostics)  // a compile that succeeded
        if (file_->ok && d.severity == "warning" && d.file == file_->path) note(diagnostic_line(d));
    }
    if (!file_->ok) {
      std::string failure = describe_failure(*file_);
      while (!failure.empty() && failure.back() == '\n')
        failure.pop_back();
      return failure;
    }
    name = file_->lesson_id;
  } else if (name.empty()) {
    return std::string("give a lesson id (tilescope-cli list) or --lesson-file PATH");
  }
  const LessonInfo* v = find_lesson(name);
  if (!v) return unknown_lesson(name);
  req = RunRequest{};
  req.lesson_id = v->id;
  req.params = v->defaults;
  // The lesson's defaults, with the parameters it reads that were given.
  for (size_t i = 0; i < param_options_.size(); ++i) {
    const ParamField& f = kParamFields[i];
    const CLI::Option* opt = param_options_[i];
    if (!opt->count()) continue;
    if (!(v->uses & f.bit)) {
      note(std::string(v->id) + " does not use " + opt->get_name() + "; ignored");
      continue;
    }
    req.params.*f.field = params.*f.field;
  }

  uint32_t mask = all_barriers(*v);
  if (o_keep && o_keep->count()) {
    if (auto e = barrier_bits(*v, "--barriers", keep, mask)) return e;
  } else if (o_drop && o_drop->count()) {
    uint32_t dropped = 0;
    if (auto e = barrier_bits(*v, "--no-barrier", drop, dropped)) return e;
    mask &= ~dropped;
  }
  req.barrier_mask = mask;

  req.backend = backend == "cuda"  ? BackendChoice::Cuda
                : backend == "sim" ? BackendChoice::Sim
                                   : BackendChoice::Auto;
  req.schedule.kind = schedule == "skew"     ? ScheduleKind::WarpSkew
                      : schedule == "random" ? ScheduleKind::Random
                                             : ScheduleKind::Lockstep;
  req.schedule.seed = seed;
  req.schedule.skew_steps = skew_steps;
  const auto warps = parse_warp_mask(skew_warps);
  if (!warps)
    return "--skew-warps '" + skew_warps +
           "': give odd, even, all, none, a mask like 0xAA or warp numbers 0 to 31 like 1,3";
  req.schedule.skew_warps = *warps;
  req.skew_warps = *warps;
  req.skew_ns = skew_ns;
  req.trace_capacity = capacity;
  req.input_seed = input_seed;
  req.inputs = inputs == "uniform" ? InputKind::Uniform : InputKind::SmallIntegers;

  // Which options do not apply depends on the backend that will run them.
  const bool gpu = req.backend == BackendChoice::Cuda ||
                   (req.backend == BackendChoice::Auto && cuda_status().usable);
  const bool seed_used =
      req.schedule.kind == ScheduleKind::Random || (seed_without_schedule && !given("--schedule"));
  if ((o_seed && o_seed->count() && !seed_used) ||
      (((o_skew_warps && o_skew_warps->count()) || (o_skew_steps && o_skew_steps->count())) &&
       req.schedule.kind != ScheduleKind::WarpSkew && skew_ns == 0))
    note(
        "--seed goes with --schedule random, --skew-warps and --skew-steps with --schedule skew "
        "(or --skew-ns on the GPU)");
  if (!gpu && o_skew_ns && o_skew_ns->count() && skew_ns > 0)
    note(
        "--skew-ns applies to the GPU only (its warps sleep); the simulator runs without it. "
        "There, --schedule skew --skew-steps N delays the warps of --skew-warps instead");
  // The checks run() makes, in its words: a bad value is a usage error here
  // and not a failed run later.
  return check_run(req);
}

}  // namespace ts

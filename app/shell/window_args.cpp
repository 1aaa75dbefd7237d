// The window's option checks (app/shell/window_args.hpp).
#include "app/shell/window_args.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "app/core/view.hpp"
#include "app/grid/layout_toggle.hpp"
#include "app/shell/fonts_themes.hpp"
#include "engine/catalogue.hpp"
#include "io/lecture_file.hpp"

namespace ts::app {
namespace {

// Digits only: no sign, no spaces, no trailing text.
std::optional<uint64_t> whole(std::string_view s) {
  uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string out_of_range(const char* option, const std::string& value, uint64_t lo, uint64_t hi,
                         const char* what = "a whole number") {
  return std::string(option) + ": " + value + " is out of range: give " + what + " from " +
         std::to_string(lo) + " to " + std::to_string(hi);
}

std::string number(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", v);
  return s;
}

// Blocks and threads per block the window will show: the select options' ranges.
std::optional<std::string> check_launch(const Options& opt, const GivenOptions& given,
                                        uint64_t blocks, uint64_t threads, const std::string& run) {
  if (given.select_block && (opt.select_block < 0 || uint64_t(opt.select_block) >= blocks))
    return out_of_range("--select-block", std::to_string(opt.select_block), 0, blocks - 1) + " (" +
           run + " launches " + std::to_string(blocks) + (blocks == 1 ? " block)" : " blocks)");
  if (given.select_thread && (opt.select_thread < 0 || uint64_t(opt.select_thread) >= threads))
    return out_of_range("--select-thread", std::to_string(opt.select_thread), 0, threads - 1) +
           " (a block of " + run + " has " + std::to_string(threads) +
           (threads == 1 ? " thread)" : " threads)");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_window_size(const std::string& size, int* width, int* height) {
  const std::string why = "--size " + size + ": use WIDTHxHEIGHT between 200x150 and 8192x8192";
  const size_t x = size.find('x');
  if (x == std::string::npos) return why;
  const auto w = whole(std::string_view(size).substr(0, x));
  const auto h = whole(std::string_view(size).substr(x + 1));
  if (!w || !h || *w < 200 || *h < 150 || *w > 8192 || *h > 8192) return why;
  *width = int(*w);
  *height = int(*h);
  return std::nullopt;
}

bool valid_quiz_answer(const std::string& spec) {
  if (spec == "none" || spec == "truth" || spec == "truth-1" || spec == "truth+1") return true;
  if (spec.rfind("choice:", 0) == 0) {
    const auto n = whole(std::string_view(spec).substr(7));
    return n && *n >= 1 && *n <= 1000;
  }
  // Rectangles: rect:ARRAY:r0,c0-r1,c1, several joined by ';' (the array's
  // name and the corners are checked against the question once it is asked).
  if (spec.rfind("rect:", 0) == 0) {
    for (size_t at = 0; at < spec.size();) {
      const size_t end = std::min(spec.find(';', at), spec.size());
      const std::string item = spec.substr(at, end - at);
      const size_t colon = item.rfind(':');
      int r0, c0, r1, c1;
      char tail;
      if (item.rfind("rect:", 0) != 0 || colon <= 5 ||
          std::sscanf(item.c_str() + colon + 1, "%d,%d-%d,%d%c", &r0, &c0, &r1, &c1, &tail) != 4 ||
          r0 < 0 || c0 < 0 || r1 < 0 || c1 < 0)
        return false;
      at = end + 1;
    }
    return spec.back() != ';';
  }
  // Cells: element numbers separated by commas, none empty.
  for (size_t at = 0; at <= spec.size();) {
    const size_t end = std::min(spec.find(',', at), spec.size());
    const auto e = whole(std::string_view(spec).substr(at, end - at));
    if (!e || *e > 0xFFFFFFFFull) return false;
    at = end + 1;
  }
  return true;
}

std::optional<std::string> check_window_options(const Options& opt, const GivenOptions& given) {
  if (given.font_size &&
      (!std::isfinite(opt.font_size) || opt.font_size < kMinFont || opt.font_size > kMaxFont))
    return out_of_range("--font-size", number(opt.font_size), uint64_t(kMinFont),
                        uint64_t(kMaxFont), "a size in points");
  if (given.frames && (opt.frames < 0 || opt.frames > 1000000))
    return out_of_range("--frames", std::to_string(opt.frames), 0, 1000000);
  if (given.hazard && opt.hazard < 0)
    return "--hazard: " + std::to_string(opt.hazard) +
           " is out of range: give a hazard's number from 0 (the first the race panel lists)";
  const struct {
    const char* flag;
    const std::string& spec;
  } positions[] = {
      {"--position", opt.position}, {"--from", opt.record_from}, {"--to", opt.record_to}};
  for (const auto& p : positions)
    if (!p.spec.empty() && !valid_position_spec(p.spec))
      return std::string(p.flag) + " '" + p.spec +
             "': use an event index, start, end, phase:N, barrier:N, access:N or stale";
  if (!opt.quiz_answer.empty()) {
    if (!valid_quiz_answer(opt.quiz_answer))
      return "--quiz-answer '" + opt.quiz_answer +
             "': use truth, truth-1, truth+1, none, choice:N, cells such as 3,17,20 or "
             "rectangles such as rect:A:0,0-3,7 (joined by ;)";
    if (opt.quiz_seed < 0) return "--quiz-answer '" + opt.quiz_answer + "': give --quiz too";
  }
  if (!opt.tab.empty()) {
    std::string names;
    bool found = false;
    for (const auto& v : make_views()) {
      found |= opt.tab == v->name();
      names += std::string(names.empty() ? "" : ", ") + v->name();
    }
    if (!found) return "--tab '" + opt.tab + "': the panels are " + names;
  }
  // The lesson's own ranges; a trace file or lecture brings its own (checked once in).
  if (!opt.trace_file.empty() || !opt.lecture.empty()) return std::nullopt;
  const LessonInfo* v = find_lesson(opt.request.lesson_id);
  if (!v) return std::nullopt;  // the lesson options said why already
  if (!opt.layout.empty() && !layout_named(*v, opt.layout)) {
    std::string labels;
    for (const LessonInfo* c : layout_siblings(*v))
      labels += std::string(labels.empty() ? "" : ", ") + "'" + c->layout_label + "'";
    return "--layout '" + opt.layout + "': " +
           (labels.empty() ? std::string(v->id) + " has no other layouts"
                           : "the layouts of " + std::string(v->id) + " are " + labels);
  }
  const LaunchGeometry g = geometry(*v, opt.request.params);
  return check_launch(opt, given, g.grid.count(), g.block.count(),
                      std::string(v->id) + " with " + describe(*v, opt.request.params));
}

std::optional<std::string> check_options_against_trace(const Options& opt, const Trace& t) {
  const LaunchGeometry& g = t.config.geometry;
  const GivenOptions given{.select_block = opt.select_block >= 0,
                           .select_thread = opt.select_thread >= 0};
  return check_launch(opt, given, g.grid.count(), g.block.count(),
                      t.config.lesson_id + " as recorded");
}

}  // namespace ts::app

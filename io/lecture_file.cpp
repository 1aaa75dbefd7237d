#include "io/lecture_file.hpp"

#include "io/input_file.hpp"

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/catalogue.hpp"
#include "engine/lesson_options.hpp"

namespace ts {
namespace {

using nlohmann::json;

constexpr const char* kStepFields =
    "lesson, params, barriers, schedule, backend, position, panels, memory, order, caption";
constexpr const char* kParamNames[] = {"m", "k", "n", "tile", "length", "radius", "block"};
constexpr uint32_t kParamBits[] = {kUsesM,      kUsesK,      kUsesN,    kUsesTile,
                                   kUsesLength, kUsesRadius, kUsesBlock};
constexpr const char* kMemoryModes[] = {"state",      "banks",      "conflicts", "sectors",
                                        "coalescing", "contention", "heatmap"};
// Positions walk phase by phase: a huge N would only spin.
constexpr uint64_t kMaxPositionSteps = 100000;

// Nesting deeper than a lecture needs is refused before parsing, so that a
// hostile file cannot exhaust the stack.
bool nesting_within(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// Characters as a reader counts them: UTF-8 code points ("é" is one, in two bytes).
size_t characters(std::string_view s) {
  return size_t(
      std::count_if(s.begin(), s.end(), [](char c) { return (uint8_t(c) & 0xC0) != 0x80; }));
}

std::string type_name(const json& j) {
  return j.type_name();
}

std::optional<uint64_t> whole(std::string_view s) {
  uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string one_of(const char* const* words, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s += std::string(i ? (i + 1 == n ? " or " : ", ") : "") + words[i];
  return s;
}

// A string field with one of `allowed` values (or any string when n == 0).
std::optional<std::string> word(const json& step, const char* field, std::string& out,
                                const char* const* allowed, size_t n) {
  if (!step.contains(field)) return std::nullopt;
  const json& j = step[field];
  if (!j.is_string())
    return std::string(field) + ": give a string" + (n ? " (" + one_of(allowed, n) + ")" : "") +
           ", not a " + type_name(j);
  out = j.get<std::string>();
  if (!n) return std::nullopt;
  for (size_t i = 0; i < n; ++i)
    if (out == allowed[i]) return std::nullopt;
  return std::string(field) + ": '" + out + "' is not one of " + one_of(allowed, n);
}

std::optional<std::string> parse_step(const json& j, LectureStep& step) {
  if (!j.is_object())
    return "give an object with " + std::string(kStepFields) + ", not a " + type_name(j);
  for (const auto& [key, value] : j.items()) {
    (void)value;
    const std::string fields = kStepFields;
    bool known = false;
    for (size_t at = 0; at <= fields.size();) {
      const size_t end = std::min(fields.find(", ", at), fields.size());
      known |= fields.compare(at, end - at, key) == 0 && key.size() == end - at;
      at = end + 2;
    }
    if (!known) return "unknown field '" + key + "'; a step has " + kStepFields;
  }
  if (!j.contains("lesson") || !j["lesson"].is_string())
    return std::string("lesson: give a lesson id as a string, one of ") + lesson_ids();
  const std::string id = j["lesson"].get<std::string>();
  const LessonInfo* v = find_lesson(id);
  if (!v) return "lesson: " + unknown_lesson(id);

  // The step as a command line, checked by the command line's own parser.
  std::vector<std::string> args = {"tilescope", "--lesson", id};
  if (j.contains("params")) {
    const json& p = j["params"];
    if (!p.is_object()) return "params: give an object like {\"n\": 12}, not a " + type_name(p);
    for (const auto& [name, value] : p.items()) {
      int which = -1;
      for (int i = 0; i < 7; ++i)
        if (name == kParamNames[i]) which = i;
      if (which < 0 || !(v->uses & kParamBits[which])) {
        std::string used;
        for (int i = 0; i < 7; ++i)
          if (v->uses & kParamBits[i])
            used += std::string(used.empty() ? "" : ", ") + kParamNames[i];
        return "params." + name + ": " + id + " takes " + (used.empty() ? "no parameters" : used);
      }
      if (!value.is_number_integer())
        return "params." + name + ": give a whole number, not a " + type_name(value);
      args.push_back("--" + name);
      args.push_back(value.dump());
    }
  }
  if (j.contains("barriers")) {
    const json& b = j["barriers"];
    const std::string what =
        "barriers: give \"all\", \"none\" or a list of the barriers kept, like [2]";
    std::string list;
    if (b.is_string()) {
      list = b.get<std::string>();
      if (list != "all" && list != "none") return what + ", not '" + list + "'";
    } else if (b.is_array()) {
      for (const json& id_json : b) {
        if (!id_json.is_number_integer()) return what + "; found a " + type_name(id_json);
        // As written (2^40, -1): a value outside int is named, not wrapped.
        const std::string text = id_json.dump();
        const bool small = id_json.is_number_unsigned() ? id_json.get<uint64_t>() <= 64
                                                        : id_json.get<int64_t>() >= -64;
        const int bid = small ? int(id_json.get<int64_t>()) : 0;
        if (!small || validate_barrier_id(*v, bid)) {
          std::string why = *validate_barrier_id(*v, 0);  // "barrier 0: <id> has ..."
          why.replace(0, why.find(':'), "barrier " + text);
          return "barriers: " + why;
        }
        list += (list.empty() ? "" : ",") + std::to_string(bid);
      }
      if (list.empty()) list = "none";
    } else {
      return what + ", not a " + type_name(b);
    }
    args.push_back("--barriers");
    args.push_back(list);
  }
  static const char* const schedules[] = {"lockstep", "skew", "random"};
  static const char* const backends[] = {"sim", "auto", "cuda"};
  std::string schedule = "skew", backend = "sim";  // as the window runs; the same on every machine
  if (auto e = word(j, "schedule", schedule, schedules, 3)) return e;
  if (auto e = word(j, "backend", backend, backends, 3)) return e;
  args.insert(args.end(), {"--schedule", schedule, "--backend", backend});

  LessonOptions options;
  options.default_lesson = id;
  CLI::App cli;
  options.add_to(cli, LessonOptions::Naming::LessonFlag);
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  try {
    cli.parse(int(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return std::string("params: ") + e.what();
  }
  if (auto e = options.to_request(step.request, nullptr)) return "params: " + *e;

  if (j.contains("position")) {
    const json& p = j["position"];
    if (p.is_number_unsigned())
      step.position = std::to_string(p.get<uint64_t>());
    else if (p.is_string())
      step.position = p.get<std::string>();
    else
      return "position: give a string like \"barrier:1\" or an event number, not a " + type_name(p);
    if (!valid_position_spec(step.position))
      return "position: '" + step.position +
             "': use start, end, stale, an event number, phase:N, barrier:N or access:N (N up to " +
             std::to_string(kMaxPositionSteps) + ")";
  }
  static const char* const panels[] = {"auto", "all", "grid", "present"};
  static const char* const orders[] = {"lockstep", "recorded"};
  if (auto e = word(j, "panels", step.panels, panels, 4)) return e;
  if (auto e = word(j, "memory", step.memory, kMemoryModes, std::size(kMemoryModes))) return e;
  if (auto e = word(j, "order", step.order, orders, 2)) return e;
  if (!j.contains("caption")) return std::string("caption: every step needs one (a string)");
  if (auto e = word(j, "caption", step.caption, nullptr, 0)) return e;
  if (characters(step.caption) > kMaxCaptionChars)
    return "caption: " + std::to_string(characters(step.caption)) + " characters; keep it under " +
           std::to_string(kMaxCaptionChars) + " (it is read from across a room)";
  return std::nullopt;
}

}  // namespace

bool valid_position_spec(const std::string& spec) {
  if (spec == "start" || spec == "end" || spec == "stale") return true;
  for (const char* prefix : {"phase:", "barrier:", "access:"}) {
    const std::string_view p = prefix;
    if (spec.rfind(p, 0) == 0) {
      const auto n = whole(std::string_view(spec).substr(p.size()));
      return n && *n <= kMaxPositionSteps;
    }
  }
  return whole(spec).has_value();
}

std::optional<Lecture> parse_lecture(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Lecture> {
    *error = std::move(why);
    return std::nullopt;
  };
  if (text.size() > kMaxLectureBytes)
    return fail("the lecture is " + std::to_string(text.size()) + " bytes; a lecture is at most " +
                std::to_string(kMaxLectureBytes));
  if (!nesting_within(text, 16)) return fail("not a lecture: nested deeper than any lecture is");
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return fail("not JSON: a lecture is a JSON object {\"title\": ..., \"steps\": [...]}");
  if (!j.is_object())
    return fail("a lecture is a JSON object with title and steps, not a " + type_name(j));
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (key != "title" && key != "steps")
      return fail("unknown field '" + key + "'; a lecture has title and steps");
  }
  Lecture lecture;
  if (!j.contains("title") || !j["title"].is_string())
    return fail("title: give the lecture a title (a string)");
  lecture.title = j["title"].get<std::string>();
  if (characters(lecture.title) > 200)
    return fail("title: " + std::to_string(characters(lecture.title)) +
                " characters; keep it under 200");
  if (!j.contains("steps") || !j["steps"].is_array())
    return fail("steps: give a list of steps, each {\"lesson\": ..., \"caption\": ...}");
  const json& steps = j["steps"];
  if (steps.empty()) return fail("steps: the lecture has no steps; give at least one");
  if (steps.size() > kMaxLectureSteps)
    return fail("steps: " + std::to_string(steps.size()) + " steps; a lecture has at most " +
                std::to_string(kMaxLectureSteps));
  for (size_t i = 0; i < steps.size(); ++i) {
    LectureStep step;
    if (auto e = parse_step(steps[i], step))
      return fail("step " + std::to_string(i + 1) + ", " + *e);
    lecture.steps.push_back(std::move(step));
  }
  return lecture;
}

std::optional<Lecture> load_lecture(const std::string& path, std::string* error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    *error = path + " is a folder; give a " + kLectureExtension + " file";
    return std::nullopt;
  }
  // Through the input layer: a FIFO or a device (/dev/zero) is refused
  // without blocking, a file over kMaxLectureBytes before it is read.
  auto in = open_input(path, {"lecture", UINT64_MAX}, error);
  if (!in) return std::nullopt;
  if (in->size() > kMaxLectureBytes) {
    *error = path + ": larger than " + std::to_string(kMaxLectureBytes) +
             " bytes; a lecture is a short script";
    return std::nullopt;
  }
  std::string text(size_t(in->size()), '\0');
  if (!in->read_at(0, text.data(), text.size(), error)) return std::nullopt;
  auto lecture = parse_lecture(text, error);
  if (!lecture) *error = path + ": " + *error;
  return lecture;
}

}  // namespace ts

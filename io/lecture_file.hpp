// Lecture scripts (.tslecture, JSON; docs/lectures.md): a title and steps,
// each a lesson run (parameters, barriers, schedule, backend), where the
// replay stands, which panels show, how the grid is coloured and a caption.
// Every field is checked here against the registry and the command line's own
// rules (engine/lesson_options.hpp), so that a bad file is refused on opening
// with the step, the field and what is allowed, and never half-plays.
//
//   std::string err;
//   auto lecture = ts::load_lecture("assets/lectures/race_lab.tslecture", &err);
//   if (!lecture) print err;   // "step 3, barriers: there is no barrier 4: ..."
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend.hpp"

namespace ts {

inline constexpr const char* kLectureExtension = ".tslecture";
inline constexpr size_t kMaxLectureBytes = 1 << 20;  // a script, not a data file
inline constexpr size_t kMaxLectureSteps = 200;
inline constexpr size_t kMaxCaptionChars = 1000;

struct LectureStep {
  RunRequest request;              // validated as tilescope --lesson ... validates it
  std::string position = "start";  // as --position takes it
  std::string panels = "auto";     // auto, all (side panels shown), grid (G) or present (P)
  std::string memory = "state";    // as --memory takes it, or heatmap (H)
  std::string order = "lockstep";  // replay order: lockstep or recorded
  std::string caption;
};

struct Lecture {
  std::string title;
  std::vector<LectureStep> steps;  // at least one
};

// nullopt with the reason ("step 2, params.tile: ...") when the text is not a
// valid lecture.
std::optional<Lecture> parse_lecture(std::string_view text, std::string* error);
// The same for a file (refused when missing, a directory, or larger than
// kMaxLectureBytes).
std::optional<Lecture> load_lecture(const std::string& path, std::string* error);
// Whether --position accepts this: start, end, stale, an event index,
// phase:N, barrier:N or access:N.
bool valid_position_spec(const std::string& spec);

}  // namespace ts

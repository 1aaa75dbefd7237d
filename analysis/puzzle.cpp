// The puzzles' files and their grader (analysis/puzzle.hpp).
#include "analysis/puzzle.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/counters.hpp"
#include "analysis/hazards.hpp"
#include "analysis/puzzle_rules.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_child.hpp"
#include "engine/lesson_file.hpp"
#include "engine/plain_cuda.hpp"
#include "engine/puzzles.hpp"
#include "engine/reference.hpp"

namespace ts {
namespace fs = std::filesystem;
namespace {

const char* const kMetrics[] = {"global_loads_per_output", "global_load_sectors_per_request",
                                "global_store_sectors_per_request", "bank_conflicts",
                                "shared_accesses_per_output"};

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::optional<std::string> read_text(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return "cannot read " + p.string();
  std::stringstream s;
  s << in.rdbuf();
  out = s.str();
  return std::nullopt;
}

// A text field: a string, or an array of lines (the file's own wrapping)
// joined into one paragraph; an empty line starts a new one.
std::string text_of(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  std::string out;
  if (j.is_array())
    for (const auto& line : j) {
      if (!line.is_string()) continue;
      const std::string l = line.get<std::string>();
      if (l.empty())
        out += "\n";
      else
        out += (out.empty() || out.back() == '\n' ? "" : " ") + l;
    }
  return out;
}

std::optional<std::string> read_params(const nlohmann::json& j, Params& p) {
  if (!j.is_object()) return std::string("\"at\" must be an object of parameters");
  for (const auto& [name, value] : j.items()) {
    const ParamField* f = nullptr;
    for (const ParamField& k : kParamFields)
      if (name == k.name) f = &k;
    if (!f || !value.is_number_integer()) return "\"at\": no integer parameter '" + name + "'";
    p.*(f->field) = value.get<int>();
  }
  return std::nullopt;
}

std::optional<std::string> load_one(const fs::path& folder, Puzzle& pz) {
  std::string text;
  if (auto e = read_text(folder / "puzzle.json", text)) return e;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "puzzle.json is not a JSON object";
  pz.folder = folder.string();
  const std::string name = folder.filename().string();
  pz.number = std::atoi(name.c_str());
  pz.id = j.value("id", "");
  if (!puzzles::find_setup(pz.id))
    return "puzzle.json: id '" + pz.id + "' has no setup in engine/puzzles.cpp";
  if (name != (pz.number < 10 ? "0" : "") + std::to_string(pz.number) + "_" + pz.id)
    return "the folder of puzzle '" + pz.id + "' must be called NN_" + pz.id;
  pz.title = j.value("title", "");
  pz.statement = text_of(j.value("statement", nlohmann::json()));
  if (pz.title.empty() || pz.statement.empty()) return "puzzle.json needs a title and a statement";
  for (const auto& h : j.value("hints", nlohmann::json::array()))
    pz.hints.push_back(text_of(h));
  for (const auto& b : j.value("budgets", nlohmann::json::array())) {
    PuzzleBudget budget;
    budget.metric = b.value("metric", "");
    if (std::none_of(std::begin(kMetrics), std::end(kMetrics),
                     [&](const char* m) { return budget.metric == m; }))
      return "puzzle.json: unknown budget metric '" + budget.metric + "'";
    budget.array = b.value("array", "");
    budget.max = b.value("max", 0.0);
    budget.why = text_of(b.value("why", nlohmann::json()));
    budget.scales_with = b.value("scales_with", "");
    if (!budget.scales_with.empty() &&
        std::none_of(std::begin(kParamFields), std::end(kParamFields),
                     [&](const ParamField& f) { return budget.scales_with == f.name; }))
      return "puzzle.json: \"scales_with\" names no parameter: '" + budget.scales_with + "'";
    if (auto e = read_params(b.value("at", nlohmann::json::object()), budget.at))
      return "puzzle.json: " + *e;
    pz.budgets.push_back(std::move(budget));
  }
  std::error_code ec;
  if (!fs::is_regular_file(folder / "skeleton.cu", ec)) return "no skeleton.cu";
  return std::nullopt;
}

// The puzzle's parameters: the declared defaults, with what `p` sets.
Params with_defaults(const LessonSpec& spec, const Params& p) {
  Params out;
  for (const ParamDecl& d : spec.params)
    for (const ParamField& f : kParamFields)
      if (std::string_view(f.name) == d.name) out.*f.field = p.*f.field ? p.*f.field : d.value;
  return out;
}

// `p` with every size it declares doubled, within the declared range (the
// radius is not a size).
Params doubled(const LessonSpec& spec, const Params& p) {
  Params out = p;
  for (const ParamDecl& d : spec.params)
    for (const ParamField& f : kParamFields)
      if (std::string_view(f.name) == d.name && std::string_view(d.name) != "radius")
        out.*f.field = std::min(d.max, 2 * p.*f.field);
  return out;
}

std::string geometry_text(const LaunchGeometry& g) {
  auto dim = [](const Dim3& d) {
    return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
  };
  return "grid " + dim(g.grid) + ", block " + dim(g.block);
}

std::string array_text(const ArrayInfo& a) {
  return a.name + " (" + to_string(a.space) + ", " + std::to_string(a.rows) + " x " +
         std::to_string(a.cols) + ")";
}

// Why the run's arrays and launch (the solution's descriptor, in the lesson
// child) are not the puzzle's, at these parameters.
std::optional<std::string> setup_difference(const RunConfig& mine, const LessonSpec& theirs,
                                            const Params& p) {
  const ArrayTable& a = mine.arrays;
  const ArrayTable b = theirs.arrays(p);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= a.size()) return "the puzzle's array " + array_text(b[i]) + " is missing";
    if (i >= b.size()) return "the array " + array_text(a[i]) + " is not the puzzle's";
    if (!(a[i] == b[i]))
      return "array " + std::to_string(i + 1) + " is " + array_text(a[i]) + ", the puzzle's is " +
             array_text(b[i]);
  }
  const LaunchGeometry& g = mine.geometry;
  const LaunchGeometry h = theirs.geometry(p);
  if (!(g.grid == h.grid) || !(g.block == h.block))
    return "the launch is " + geometry_text(g) + ", the puzzle's is " + geometry_text(h);
  return std::nullopt;
}

// "out[12]", with its row and column for a matrix.
std::string cell_name(const Trace& t, ArraySlot slot, uint32_t element) {
  const ArrayInfo* a = t.array(slot);
  std::string s = element_name(t.config.arrays, slot, element);
  if (a && a->rows > 1 && a->cols > 0)
    s += " (row " + std::to_string(element / uint32_t(a->cols)) + ", column " +
         std::to_string(element % uint32_t(a->cols)) + ")";
  return s;
}

RunRequest request_at(const std::string& id, const Params& p, ScheduleKind schedule) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = schedule;
  return req;
}

}  // namespace

namespace puzzle_rules {

std::optional<RuleResult> output_problem(const LessonSpec& theirs, const RunResult& r,
                                         const std::string& params, ScheduleKind schedule) {
  RuleResult res;
  res.rule = "output";
  res.status = RuleStatus::Fail;
  res.at = params;
  const std::string at = params + (schedule == ScheduleKind::WarpSkew ? " under warp skew"
                                   : schedule == ScheduleKind::Random ? " in a random schedule"
                                                                      : "");
  if (!r.ok) {
    res.reason = "at " + at + " the run stopped: " + r.error;
    return res;
  }
  if (!r.faults.empty()) {
    res.reason = "at " + at + ": " + r.faults.front();
    return res;
  }
  const Trace& t = r.trace;
  // The inputs as the puzzle makes them here, never as the solution's process says.
  const LessonInfo* info = find_lesson(t.config.lesson_id);
  const std::vector<BufferData> inputs =
      info ? make_inputs(*info, t.config.params, InputKind::SmallIntegers, t.config.input_seed)
           : std::vector<BufferData>{};
  LessonInputs in;
  in.by_slot.assign(kMaxArrays + 1, nullptr);
  static const std::vector<float> kNone;
  for (auto& s : in.by_slot)
    s = &kNone;
  for (const BufferData& b : inputs)
    if (b.slot >= 1 && b.slot <= kMaxArrays) in.by_slot[b.slot] = &b.values;
  const BufferData* out = nullptr;
  for (const BufferData& b : t.buffers) {
    if (b.is_output && !out) out = &b;
    if (!b.is_output && b.slot >= 1 && b.slot <= kMaxArrays && in.by_slot[b.slot] != &kNone &&
        b.values != *in.by_slot[b.slot]) {
      res.reason = "at " + at + ": the input " + array_name(t.config.arrays, b.slot) +
                   " is not the puzzle's after the run (an input must not be written)";
      return res;
    }
  }
  const std::vector<float> want = theirs.reference(t.config.params, in);
  if (!out || out->values.size() != want.size()) {
    res.reason = "at " + at + ": the run has no output of the puzzle's size";
    return res;
  }
  const Counters c = count_accesses(t);
  const ElementCounts* stores = nullptr;
  for (const ElementCounts& e : c.global_stores_per_element)
    if (e.buffer == out->slot) stores = &e;
  size_t wrong = 0, first = want.size();
  bool never = false;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool unwritten = stores && i < stores->count.size() && stores->count[i] == 0;
    const double tol = 1e-4 * (1.0 + std::fabs(double(want[i])));
    if (unwritten || !(std::fabs(double(out->values[i]) - double(want[i])) <= tol)) {
      if (first == want.size()) first = i, never = unwritten;
      ++wrong;
    }
  }
  if (!wrong) return std::nullopt;
  res.cell = cell_name(t, out->slot, uint32_t(first));
  res.expected = want[first];
  res.got = out->values[first];
  res.never_written = never;
  res.reason = "wrong output at " + at + ": " + std::to_string(wrong) + " of " +
               std::to_string(want.size()) + " cells wrong; the first, " + res.cell + ", " +
               (never ? "was never written" : "is " + fmt(res.got)) + ", expected " +
               fmt(res.expected);
  return res;
}

}  // namespace puzzle_rules

namespace {

using puzzle_rules::output_problem;
// The line of `name`'s `__shared__` declaration in the solution (0: not
// found); `declared` false where only a later line names it (a macro for
// __shared__, a header's array).
int shared_decl_line(const std::string& path, const std::string& name, bool& declared) {
  std::string text;
  if (read_text(path, text)) return 0;
  auto word_at = [&](const std::string& line, size_t at) {
    auto id = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    return (at == 0 || !id(line[at - 1])) &&
           (at + name.size() >= line.size() || !id(line[at + name.size()]));
  };
  // The line that says __shared__ and names it; else (a macro for __shared__)
  // the first `name[`.
  for (const bool qualified : {true, false}) {
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (qualified && line.find("__shared__") == std::string::npos &&
          line.find("TS_EXTERN_SHARED") == std::string::npos)
        continue;
      for (size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1))
        if (word_at(line, at) &&
            (qualified || line.find_first_not_of(' ', at + name.size()) == line.find('[', at))) {
          declared = qualified;
          return n;
        }
    }
  }
  return 0;
}

// The traced rule's failure for shared memory no traced access reached.
void untraced_shared_reason(const std::vector<sim::UntracedShared>& all, const std::string& path,
                            const std::string& at, RuleResult& res) {
  // One written around the trace first: a used array before an unused one.
  const auto written =
      std::find_if(all.begin(), all.end(), [](const sim::UntracedShared& a) { return a.written; });
  const sim::UntracedShared& u = written != all.end() ? *written : all.front();
  const bool cu = is_plain_cuda_path(path);
  const bool dynamic = u.function.empty() && u.name == "dynamic shared memory";
  bool declared = false;
  res.line = dynamic ? 0 : shared_decl_line(path, u.name, declared);
  std::string what =
      dynamic ? "the launch's dynamic shared memory (" + std::to_string(u.bytes) + " bytes)"
              : "`" + u.name + "` (" + std::to_string(u.bytes) + " bytes of __shared__" +
                    (res.line ? (declared ? ", declared at line " : ", first named at line ") +
                                    std::to_string(res.line)
                              : "") +
                    (u.function.empty() ? ", at file scope" : "") + ")";
  std::string advice;
  if (!u.written)
    advice =
        "is declared but never used (no traced access reached it, and it holds nothing after "
        "the run): remove it";
  else if (cu)
    advice = std::string(
                 "is declared but none of its accesses are in the trace: TileScope cannot "
                 "check what it cannot see (its races, barriers and bank conflicts); ") +
             (u.function.empty()
                  ? "declare it inside the kernel"
                  : "declare it in the kernel or in a __device__ function at file scope") +
             " and index it directly (`" + (dynamic ? "s" : u.name) +
             "[i]`), never through a cast pointer";
  else
    advice =
        "is declared but none of its accesses are in the trace: TileScope cannot check what it "
        "cannot see (its races, barriers and bank conflicts); declare it as the skeleton "
        "does, `__shared__ float " +
        u.name +
        "_mem[...];` with a SharedArray or SharedTile over it and the puzzle's slot, "
        "and use only that";
  res.status = RuleStatus::Fail;
  res.at = at;
  res.reason = what + " " + advice;
  if (all.size() > 1)
    res.reason += " (and " + std::to_string(all.size() - 1) + " more shared array" +
                  (all.size() > 2 ? "s" : "") + " like it)";
}

// The first element of an input that no traced load read, at a size where
// the output is right: the output depends on every input element, so it
// was read around the trace (a lesson header's KernelArgs pointers).
std::optional<std::string> unread_input(const Trace& t) {
  if (t.events_dropped) return std::nullopt;  // the trace is not whole
  const Counters c = count_accesses(t);
  for (const BufferData& b : t.buffers) {
    if (b.is_output || b.values.empty()) continue;
    const ElementCounts* loads = c.loads_of(b.slot);
    for (size_t i = 0; i < b.values.size(); ++i)
      if (!loads || i >= loads->count.size() || loads->count[i] == 0)
        return cell_name(t, b.slot, uint32_t(i));
  }
  return std::nullopt;
}

std::string hazard_reason(const Trace& t, const HazardReport& h, const std::string& at,
                          const char* schedule, RuleResult& res) {
  const HazardGroup& g = h.groups.front();
  res.line = g.second_line;
  res.other_line = g.first_line;
  std::string s = std::string(long_name(g.kind)) + " hazard (" + to_string(g.kind) +
                  ", racecheck " + to_string(g.severity) + ") on " +
                  array_name(t.config.arrays, g.buffer) + " between line " +
                  std::to_string(g.first_line) + " and line " + std::to_string(g.second_line);
  if (!g.detail.empty()) {
    const Hazard& z = h.hazards[g.detail.front()];
    auto side = [](const HazardAccess& a) {
      return "thread " + std::to_string(a.thread) + " (warp " + std::to_string(a.warp) + ") " +
             (a.is_write ? "stores it" : "loads it") + " at line " + std::to_string(a.line);
    };
    s += ": in block " + std::to_string(z.block) + ", " +
         element_name(t.config.arrays, z.buffer, z.element) + ": " + side(z.first) + ", then " +
         side(z.second) + ", with no barrier between them";
  }
  s += " (" + std::to_string(h.total) + " racing pairs at " + at + ", " + schedule + " schedule)";
  return s;
}

// The site (line) that costs the most of a sector or bank metric.
std::string worst_site(const WarpAccesses& w, bool shared, EventKind kind) {
  const SiteTotals* worst = nullptr;
  double worst_excess = 0;
  for (const SiteTotals& s : w.per_site) {
    double excess = 0;
    if (shared && (s.kind == EventKind::SharedLoad || s.kind == EventKind::SharedStore))
      excess = double(s.totals.bank_conflicts());
    else if (!shared && s.kind == kind)
      excess = double(s.totals.sectors) - double(s.totals.ideal_sectors);
    if (excess > worst_excess) worst = &s, worst_excess = excess;
  }
  if (!worst) return "";
  return std::to_string(worst->line);
}

RuleResult check_budget(const Puzzle& pz, const PuzzleBudget& b, const LessonSpec& theirs,
                        const RunResult& r) {
  RuleResult res;
  res.rule = "budget " + b.metric + (b.array.empty() ? "" : " (" + b.array + ")");
  const Params p = r.ok ? r.trace.config.params : with_defaults(theirs, b.at);
  res.at = puzzle_params_text(pz, p);
  res.limit = b.max;
  for (const ParamField& f : kParamFields)  // a limit that grows with a size
    if (b.scales_with == f.name && b.at.*f.field > 0)
      res.limit = b.max * double(p.*f.field) / double(with_defaults(theirs, b.at).*f.field);
  if (!r.ok) {
    res.reason = "not measured: at " + res.at + " the run stopped: " + r.error;
    return res;
  }
  const Trace& t = r.trace;
  const ArraySlot only = b.array.empty() ? kNoArray : slot_named(t.config.arrays, b.array);
  const Counters c = count_accesses(t);
  const double outputs = double(std::max<uint64_t>(c.output_elements, 1));
  std::string what, line;
  if (b.metric == "global_loads_per_output") {
    res.measured = (only ? double(c.loads[only]) : double(c.global_loads())) / outputs;
    what = "global loads" + (b.array.empty() ? std::string() : " of " + b.array) + " per output";
  } else if (b.metric == "shared_accesses_per_output") {
    res.measured = double(c.shared_loads() + c.shared_stores() + c.shared_atomics()) / outputs;
    what = "shared loads, stores and atomics per output";
  } else {
    const WarpAccesses w = warp_accesses(t);
    if (b.metric == "bank_conflicts") {
      res.measured = double(w.totals(EventKind::SharedLoad).bank_conflicts() +
                            w.totals(EventKind::SharedStore).bank_conflicts());
      what = "bank conflicts (extra shared-memory wavefronts)";
      line = worst_site(w, true, EventKind::SharedLoad);
    } else {
      const EventKind kind = b.metric == "global_load_sectors_per_request" ? EventKind::GlobalLoad
                                                                           : EventKind::GlobalStore;
      AccessTotals tot;
      for (const SiteTotals& s : w.per_site)
        if (s.kind == kind && (!only || s.array == only)) {
          tot.requests += s.totals.requests;
          tot.sectors += s.totals.sectors;
        }
      res.measured = tot.sectors_per_request();
      what = std::string("sectors per ") + (kind == EventKind::GlobalLoad ? "load" : "store") +
             " request" + (b.array.empty() ? "" : " of " + b.array);
      line = worst_site(w, false, kind);
    }
  }
  const bool ok = res.measured <= res.limit + 1e-9;
  res.status = ok ? RuleStatus::Pass : RuleStatus::Fail;
  res.reason = "at " + res.at + ": " + fmt(res.measured) + " " + what +
               (ok ? ", within " : ", over ") + "the budget of " + fmt(res.limit);
  if (!ok && !line.empty()) {
    res.line = std::atoi(line.c_str());
    res.reason += "; the most at line " + line;
  }
  if (!ok && !b.why.empty()) res.reason += " (" + b.why + ")";
  return res;
}

}  // namespace

const char* to_string(RuleStatus s) {
  switch (s) {
    case RuleStatus::Pass:
      return "pass";
    case RuleStatus::Fail:
      return "fail";
    case RuleStatus::NotChecked:
      break;
  }
  return "not checked";
}

const RuleResult* PuzzleGrade::first_failure() const {
  for (const RuleResult& r : rules)
    if (r.status == RuleStatus::Fail) return &r;
  return nullptr;
}

PuzzleList load_puzzles(const std::string& given) {
  PuzzleList list;
  list.dir = given.empty() ? puzzles::puzzles_dir() : given;
  if (list.dir.empty()) {
    list.problems.push_back(
        "the puzzles' folder is not found (assets/puzzles in the source tree, "
        "share/tilescope/puzzles when installed; TILESCOPE_PUZZLES names another)");
    return list;
  }
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(list.dir, ec))
    if (e.is_directory(ec)) folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());
  for (const fs::path& f : folders) {
    Puzzle pz;
    if (auto e = load_one(f, pz))
      list.problems.push_back(f.filename().string() + ": " + *e);
    else
      list.puzzles.push_back(std::move(pz));
  }
  return list;
}

const Puzzle* find_puzzle(const PuzzleList& list, std::string_view name) {
  for (const Puzzle& p : list.puzzles)
    if (p.id == name || fs::path(p.folder).filename() == name ||
        (!name.empty() && std::to_string(p.number) == name))
      return &p;
  return nullptr;
}

void record_grade(PuzzleProgress& p, const PuzzleGrade& g) {
  std::string& s = p[g.puzzle];
  if (g.passed)
    s = "solved";
  else if (s != "solved")
    s = "attempted";
}

std::string puzzle_params_text(const Puzzle& puzzle, const Params& p) {
  const puzzles::PuzzleSetup* s = puzzles::find_setup(puzzle.id);
  std::string out;
  if (!s) return out;
  for (const ParamDecl& d : s->spec().params)
    for (const ParamField& f : kParamFields)
      if (std::string_view(f.name) == d.name)
        out += (out.empty() ? "" : " ") + std::string(f.name) + "=" + std::to_string(p.*f.field);
  return out;
}

PuzzleGrade grade_puzzle(const Puzzle& pz, const std::string& solution_path,
                         const GradeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PuzzleGrade g;
  g.puzzle = pz.id;
  g.solution = solution_path;
  const puzzles::PuzzleSetup* setup = puzzles::find_setup(pz.id);
  const LessonSpec theirs = setup->spec();
  auto rule = [&](const std::string& name) -> RuleResult& {
    g.rules.push_back({});
    g.rules.back().rule = name;
    return g.rules.back();
  };
  auto finish = [&]() {
    g.passed = std::all_of(g.rules.begin(), g.rules.end(),
                           [](const RuleResult& r) { return r.status == RuleStatus::Pass; });
    g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return g;
  };
  // The rules after a failure that stops the grading: not checked.
  auto not_checked = [&](const char* why, bool setup_too) {
    for (const char* n : {"setup", "output", "traced", "hazards"})
      if (setup_too || std::string_view(n) != "setup") rule(n).reason = why;
    for (const PuzzleBudget& b : pz.budgets)
      rule("budget " + b.metric + (b.array.empty() ? "" : " (" + b.array + ")")).reason = why;
  };

  // compiles: here, with TileScope's own descriptor of the puzzle; the
  // solution's code never runs in this process (engine/lesson_child.hpp).
  std::optional<LessonSpec> spec;
  std::string spec_error;
  try {
    spec = puzzles::setup(pz.id.c_str(), solution_path.c_str());
  } catch (const std::exception& e) {
    spec_error = e.what();
  }
  const LessonFile f = spec ? load_lesson_file_as(solution_path, *spec) : LessonFile{};
  g.cached = f.cached;
  g.compile_seconds = f.seconds;
  {
    RuleResult& r = rule("compiles");
    if (!f.ok) {
      r.status = RuleStatus::Fail;
      r.reason = spec ? f.error : solution_path + ": " + spec_error;
      if (const CompilerDiagnostic* d = first_error_in_file(f)) r.line = d->line;
      not_checked("the file did not compile", true);
      return finish();
    }
    r.status = RuleStatus::Pass;
    char took[32];
    std::snprintf(took, sizeof took, "%.1f", f.seconds);
    r.reason = f.cached ? "compiled (from the cache)" : std::string("compiled in ") + took + " s";
  }

  // Every run the grade needs, in one lesson child: each hidden size in
  // lockstep, under warp skew and in a random schedule, then each budget at
  // its own size and at twice it.
  constexpr ScheduleKind kSchedules[] = {ScheduleKind::Lockstep, ScheduleKind::WarpSkew,
                                         ScheduleKind::Random};
  constexpr size_t kPerSize = std::size(kSchedules);
  std::vector<RunRequest> requests;
  std::vector<Params> sizes;
  for (const Params& h : setup->hidden) {
    sizes.push_back(with_defaults(theirs, h));
    for (const ScheduleKind kind : kSchedules) {
      requests.push_back(request_at(f.lesson_id, sizes.back(), kind));
      requests.back().schedule.seed = 1 + sizes.size();  // a different order at each size
    }
  }
  const size_t first_budget = requests.size();
  for (const PuzzleBudget& b : pz.budgets) {
    const Params at = with_defaults(theirs, b.at);
    requests.push_back(request_at(f.lesson_id, at, ScheduleKind::Lockstep));
    requests.push_back(request_at(f.lesson_id, doubled(theirs, at), ScheduleKind::Lockstep));
  }
  // On the GPU too: each hidden size once (the hardware's own schedule).
  const size_t first_gpu = requests.size();
  if (options.gpu)
    for (const Params& size : sizes) {
      requests.push_back(request_at(f.lesson_id, size, ScheduleKind::Lockstep));
      requests.back().backend = BackendChoice::Cuda;
    }
  const LessonChildResult child =
      run_lesson_file_in_child(f.path, requests, {.stop_at_failure = true, .compiled = true});
  auto lockstep = [&](size_t size) -> const RunResult& { return child.runs[kPerSize * size]; };
  auto schedule_of = [&](size_t run) {
    return run < first_budget ? kSchedules[run % kPerSize] : ScheduleKind::Lockstep;
  };
  auto params_of = [&](size_t run) { return requests[run].params; };

  // setup: the arrays and launch the solution's runs had
  {
    RuleResult& r = rule("setup");
    std::optional<std::string> diff;
    for (size_t i = 0; i < sizes.size() && !diff; ++i)
      if (lockstep(i).ok && (diff = setup_difference(lockstep(i).trace.config, theirs, sizes[i])))
        r.at = puzzle_params_text(pz, sizes[i]);
    if (diff) {
      r.status = RuleStatus::Fail;
      r.reason = "the descriptor is not puzzle " + pz.id + "'s: " + *diff +
                 (is_plain_cuda_path(solution_path)
                      ? " (keep the launch block `/* tilescope: puzzle " + pz.id + " */`)"
                      : " (keep `return puzzles::setup(\"" + pz.id + "\", __FILE__);`)");
      not_checked("the setup is not the puzzle's", false);
      return finish();
    }
    r.status = RuleStatus::Pass;
    r.reason = "the puzzle's arrays and launch";
  }

  // output: every run, each hidden size in every schedule and each budget's
  // runs (a kernel must be right where its accesses are counted)
  {
    RuleResult& r = rule("output");
    for (size_t k = 0; k < first_gpu && r.status != RuleStatus::Fail; ++k) {
      const RunResult& run = child.runs[k];
      if (run.error.rfind("not run", 0) == 0) continue;
      if (auto problem =
              output_problem(theirs, run, puzzle_params_text(pz, params_of(k)), schedule_of(k))) {
        r = *problem;
        if (!run.ok && child.failure_line > 0) r.line = child.failure_line;
      }
    }
    if (r.status != RuleStatus::Fail) {
      std::string list;
      for (const Params& p : sizes)
        list += (list.empty() ? "" : ", ") + puzzle_params_text(pz, p);
      r.status = RuleStatus::Pass;
      r.reason = "right at " + std::to_string(sizes.size()) + " sizes (" + list +
                 "), in lockstep, under warp skew and in a random schedule";
    }
  }

  // traced: no shared memory used around the trace, no input read around it
  {
    RuleResult& r = rule("traced");
    for (size_t k = 0; k < child.runs.size() && r.status != RuleStatus::Fail; ++k)
      if (child.runs[k].ok && !child.runs[k].untraced_shared.empty())
        untraced_shared_reason(child.runs[k].untraced_shared, solution_path,
                               puzzle_params_text(pz, params_of(k)), r);
    const bool right = g.rules[2].status == RuleStatus::Pass;
    for (size_t i = 0; right && i < sizes.size() && r.status != RuleStatus::Fail; ++i)
      if (lockstep(i).ok)
        if (auto cell = unread_input(lockstep(i).trace)) {
          r.status = RuleStatus::Fail;
          r.at = puzzle_params_text(pz, sizes[i]);
          r.reason = "at " + r.at + " the output is right, but no traced load ever read " + *cell +
                     ", which it depends on: it was read some way TileScope cannot see " +
                     (is_plain_cuda_path(solution_path)
                          ? std::string("(a cast pointer): read it through its parameter")
                          : std::string("(KernelArgs' pointers, args.data or args.ptr): read it "
                                        "through its GlobalArray, as the skeleton does"));
        }
    const bool any_ran = std::any_of(child.runs.begin(), child.runs.end(),
                                     [](const RunResult& run) { return run.ok; });
    if (r.status != RuleStatus::Fail && !any_ran) {
      r.status = RuleStatus::NotChecked;
      r.reason = "no run finished";
    } else if (r.status != RuleStatus::Fail) {
      r.status = RuleStatus::Pass;
      r.reason = "every shared array the kernel declares is used through the trace" +
                 std::string(right ? ", and every input element is read through it" : "");
    }
  }

  // hazards: each size in every schedule
  {
    RuleResult& r = rule("hazards");
    uint64_t shared = 0;
    bool ran = false;
    for (size_t k = 0; k < first_budget && r.status != RuleStatus::Fail; ++k) {
      const RunResult& run = child.runs[k];
      if (!run.ok) continue;
      ran = true;
      // Atomics count as writes against plain accesses of other threads (the
      // races racecheck misses: an atomicAdd read back by another warp unsynced).
      HazardOptions with_atomics;
      with_atomics.atomics = true;
      const HazardReport h = analyze_hazards(run.trace, with_atomics);
      shared += h.shared_accesses;
      if (h.total) {
        const std::string at = puzzle_params_text(pz, params_of(k));
        r.status = RuleStatus::Fail;
        r.at = at;
        r.reason = hazard_reason(run.trace, h, at,
                                 schedule_of(k) == ScheduleKind::WarpSkew ? "warp-skew"
                                 : schedule_of(k) == ScheduleKind::Random ? "random"
                                                                          : "lockstep",
                                 r);
      }
    }
    const bool all_ran = std::all_of(child.runs.begin(), child.runs.begin() + first_gpu,
                                     [](const RunResult& run) { return run.ok; });
    if (r.status != RuleStatus::Fail && !all_ran) {
      r.status = RuleStatus::NotChecked;
      r.reason = "not every run finished (see output)";
    } else if (r.status != RuleStatus::Fail) {
      r.status = ran ? RuleStatus::Pass : RuleStatus::NotChecked;
      r.reason = !ran     ? "no run finished"
                 : shared ? "no racing pair among " + std::to_string(shared) +
                                " shared accesses, in lockstep, under warp skew and in a random "
                                "schedule"
                          : "no shared access in the trace: nothing in it can race";
    }
  }

  // A budget counts the accesses of a kernel that does the job: measured
  // only once the output is right.
  const bool output_right = g.rules[2].status == RuleStatus::Pass;
  for (size_t i = 0; i < pz.budgets.size(); ++i) {
    const PuzzleBudget& b = pz.budgets[i];
    if (output_right) {
      // At the budget's size, then at twice it: a kernel that
      // is frugal only at the size it is measured at does not pass.
      RuleResult at_budget = check_budget(pz, b, theirs, child.runs[first_budget + 2 * i]);
      if (at_budget.status == RuleStatus::Pass) {
        RuleResult at_largest = check_budget(pz, b, theirs, child.runs[first_budget + 2 * i + 1]);
        if (at_largest.status != RuleStatus::Pass)
          at_budget = at_largest;
        else
          at_budget.reason += "; " + at_largest.reason;
      }
      g.rules.push_back(std::move(at_budget));
    } else {
      rule("budget " + b.metric + (b.array.empty() ? "" : " (" + b.array + ")")).reason =
          "not measured until the output is right";
    }
  }

  if (options.gpu) {
    std::vector<puzzle_rules::GpuRun> on_gpu;
    for (size_t i = 0; i < sizes.size(); ++i)
      on_gpu.push_back(
          {&child.runs[first_gpu + i], &lockstep(i), puzzle_params_text(pz, sizes[i])});
    g.rules.push_back(puzzle_rules::gpu_rule(theirs, on_gpu, output_right));
  }
  return finish();
}

}  // namespace ts

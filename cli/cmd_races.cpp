// `tilescope-cli races <lesson> ...`: the race lab, headless.
//
// One traced run -> racecheck-style hazard report (grouped by source-line
// pair; --detail for every hazard), the loads that saw another value than the
// synchronised program, the wrong output cells; then N untraced runs -> how
// often the race bit, with a histogram of wrong cells per run.
//
//   tilescope-cli races matmul.tiled_square --n 64 --tile 16 --barriers 1 --runs 20 --skew-ns 1000
//   tilescope-cli races stencil.shared --barriers none --backend sim --schedule skew --json
//   tilescope-cli races matmul.tiled_square --barriers 1 --backend cuda --launch-only  (for
//   racecheck)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "analysis/hazards.hpp"
#include "analysis/race_runs.hpp"
#include "analysis/stale_reads.hpp"
#include "cli/command.hpp"
#include "cli/report.hpp"
#include "engine/backend.hpp"
#include "engine/lesson_options.hpp"

namespace ts::cli {
namespace {

struct RacesOptions {
  LessonOptions lesson;
  int runs = 10;
  bool detail = false;
  int detail_limit = 50;
  bool json = false;
  bool launch_only = false;
  bool no_stale = false;
  bool cases = false;
};

std::string barrier_text(const LessonInfo& v, BarrierSet kept_set) {
  if (v.barriers.empty()) return "no barriers";
  std::string kept, removed;
  for (const auto& b : v.barriers) {
    std::string& s = kept_set.keeps(b.id) ? kept : removed;
    s += (s.empty() ? "" : ",") + std::to_string(b.id);
  }
  if (removed.empty()) return "all barriers (" + kept + ")";
  return "barriers kept: " + (kept.empty() ? std::string("none") : kept) + ", removed: " + removed;
}

std::string fmt(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

nlohmann::json hazard_json(const ArrayTable& arrays, const Hazard& h) {
  auto side = [](const HazardAccess& a) {
    return nlohmann::json{{"event", a.event}, {"thread", a.thread},  {"warp", a.warp},
                          {"line", a.line},   {"write", a.is_write}, {"value", a.value}};
  };
  return {{"kind", to_string(h.kind)}, {"severity", to_string(h.severity)},
          {"block", h.block},          {"buffer", array_name(arrays, h.buffer)},
          {"element", h.element},      {"cell", element_name(arrays, h.buffer, h.element)},
          {"interval", h.interval},    {"first", side(h.first)},
          {"second", side(h.second)}};
}

// What a `races` run found: plain data, printed as text or as JSON.
struct RacesReport {
  const LessonInfo* lesson = nullptr;
  RunRequest request;
  bool default_schedule = true;  // no --schedule: the repeated runs use the random one
  RunResult traced;              // the one traced run
  HazardReport hazards;
  StaleReadReport stale;
  OutputDamage damage;
  RaceRunsResult runs;  // the repeated untraced runs
};

// For scripts (scripts/racecheck_compare.sh): every lesson and its barrier count.
int print_cases(bool json) {
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const LessonInfo& v : all_lessons())
      j.push_back({{"id", v.id}, {"barriers", v.barriers.size()}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (const LessonInfo& v : all_lessons())
    std::cout << v.id << " " << v.barriers.size() << "\n";
  return 0;
}

// For compute-sanitizer racecheck: exactly one untraced launch, nothing else.
int launch_once(const char* cmd, const LessonInfo& v, RunRequest req) {
  req.traced = false;
  RunResult r = run(req);
  if (!r.ok) return failure(cmd, r.error, false);
  std::cout << v.id << " " << describe(v, req.params) << ", " << barrier_text(v, req.barrier_mask)
            << ": " << r.verdict.summary() << "\n";
  return 0;
}

// One traced run (hazards, stale reads, wrong cells), then the repeated runs.
// nullopt with `report` filled, else the error (a failed traced run).
std::optional<std::string> make_report(const RacesOptions& o, RaceRunsRequest rr,
                                       RacesReport& report) {
  const RunRequest& req = report.request;
  RunRequest traced = req;
  traced.traced = true;
  traced.skew_ns = 0;
  report.traced = run(traced);
  const RunResult& t = report.traced;
  if (!t.ok) return t.error;
  HazardOptions hopt;
  hopt.detail_per_group = uint32_t(std::max(1, o.detail_limit));
  report.hazards = analyze_hazards(t.trace, hopt);
  if (!o.no_stale)
    report.stale = find_stale_reads(t.trace, req.inputs, size_t(std::max(1, o.detail_limit)));
  report.damage = output_damage(t.trace);

  // Repeated runs (untraced), in the configured backend.
  report.runs = run_race_runs(rr);
  report.runs.hazards = report.hazards;
  report.runs.hazards_checked = !t.trace.truncated();
  if (t.trace.truncated())
    report.runs.hazards_note = "the trace needs " + std::to_string(t.trace.events_needed()) +
                               " events; raise --capacity or choose a smaller size";
  return std::nullopt;
}

nlohmann::json hazards_json(const RacesReport& r, const RacesOptions& o) {
  const HazardReport& hz = r.hazards;
  const ArrayTable& arrays = r.traced.trace.config.arrays;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : hz.groups)
    groups.push_back({{"kind", to_string(g.kind)},
                      {"severity", to_string(g.severity)},
                      {"buffer", array_name(arrays, g.buffer)},
                      {"first_line", g.first_line},
                      {"second_line", g.second_line},
                      {"count", g.count},
                      {"elements", g.elements},
                      {"blocks", g.blocks}});
  auto kinds = [&](HazardSeverity sev) {
    nlohmann::json k = nlohmann::json::array();
    for (int i = 0; i < kHazardKindCount; ++i)
      if (hz.has(sev, HazardKind(i))) k.push_back(to_string(HazardKind(i)));
    return k;
  };
  nlohmann::json by_order = nlohmann::json::array();
  for (int i = 0; i < kHazardKindCount; ++i)
    if (hz.error_kinds_by_order[i]) by_order.push_back(to_string(HazardKind(i)));
  nlohmann::json j = {
      {"verdict", hz.verdict()},
      {"seen_verdict", hz.seen_verdict()},
      {"model", hz.model == HazardModel::LastAccess ? "last access" : "since last write"},
      {"kinds",
       {{"error", kinds(HazardSeverity::Error)}, {"warning", kinds(HazardSeverity::Warning)}}},
      {"order_dependent", hz.order_dependent()},
      {"error_kinds_by_order", by_order},
      {"total", hz.total},
      {"errors", hz.errors},
      {"warnings", hz.warnings},
      {"RAW", hz.by_kind[0]},
      {"WAR", hz.by_kind[1]},
      {"WAW", hz.by_kind[2]},
      {"shared_accesses", hz.shared_accesses},
      {"trace_truncated", hz.trace_truncated},
      {"groups", groups}};
  if (o.detail) {
    nlohmann::json d = nlohmann::json::array();
    for (const auto& h : hz.hazards)
      d.push_back(hazard_json(arrays, h));
    j["detail"] = d;
  }
  return j;
}

nlohmann::json runs_json(const RacesReport& r) {
  const RaceRunsResult& runs = r.runs;
  nlohmann::json hist = nlohmann::json::array();
  for (size_t i = 0; i < runs.histogram.counts.size(); ++i)
    hist.push_back({{"from", runs.histogram.lower[i]},
                    {"to", runs.histogram.upper[i]},
                    {"runs", runs.histogram.counts[i]}});
  return {{"ok", runs.ok},
          {"error", runs.error},
          {"backend", runs.backend_note},
          {"plan", runs.plan},
          {"deterministic", runs.deterministic},
          {"requested", runs.runs_requested},
          {"done", runs.runs_done},
          {"wrong", runs.wrong_runs},
          {"rate", runs.rate()},
          {"skew_ns", r.request.skew_ns},
          {"seeds", runs.deterministic || runs.backend == BackendKind::Cuda
                        ? nlohmann::json()
                        : nlohmann::json{{"first", runs.first_seed}, {"last", runs.last_seed}}},
          {"wrong_cells_per_run", runs.wrong_cells_per_run},
          {"max_abs_error", runs.max_abs_error},
          {"histogram", hist},
          {"run_errors", runs.run_errors},
          {"state", runs.state()}};
}

// The JSON printer; the exit status: 1 when the repeated runs failed.
int print_json(const RacesReport& r, const RacesOptions& o) {
  const LessonInfo& v = *r.lesson;
  const RunResult& t = r.traced;
  const HazardReport& hz = r.hazards;
  nlohmann::json j;
  j["variant"] = v.id;
  j["params"] = describe(v, r.request.params);
  j["barrier_mask"] = r.request.barrier_mask.mask();
  j["barriers"] = barrier_text(v, r.request.barrier_mask);
  j["backend"] = t.backend_note;
  j["trace"] = {{"events", t.trace.events.size()},
                {"truncated", t.trace.truncated()},
                {"events_needed", t.trace.events_needed()}};
  if (!hz.with_atomics_verdict.empty())
    j["with_atomics"] = {{"verdict", hz.with_atomics_verdict},
                         {"total", hz.with_atomics_total},
                         {"missed_by_racecheck", hz.missed_by_racecheck()}};
  if (!hz.since_last_write_verdict.empty())
    j["since_last_write"] = {{"verdict", hz.since_last_write_verdict},
                             {"total", hz.since_last_write_total},
                             {"hidden_by_shadow", hz.hidden_by_shadow()}};
  j["hazards"] = hazards_json(r, o);
  if (!o.no_stale) {
    const StaleReadReport& stale = r.stale;
    j["stale_reads"] = {{"compared", stale.compared},
                        {"error", stale.error},
                        {"loads_compared", stale.loads_compared},
                        {"stale", stale.stale},
                        {"shared", stale.stale_shared},
                        {"global", stale.stale_global},
                        {"unmatched", stale.unmatched}};
  }
  const OutputDamage& damage = r.damage;
  j["output"] = {{"checked", damage.checked},
                 {"error", damage.error},
                 {"cells", damage.cells},
                 {"wrong", damage.wrong.size()},
                 {"max_abs_error", damage.max_abs_error}};
  j["runs"] = runs_json(r);
  std::cout << j.dump(2) << "\n";
  return r.runs.ok ? 0 : 1;
}

void print_hazard_detail(const RacesReport& r, const RacesOptions& o) {
  const HazardReport& hz = r.hazards;
  const ArrayTable& arrays = r.traced.trace.config.arrays;
  std::cout << "\n  Detail (first " << o.detail_limit << " per group):\n";
  auto who = [](const HazardAccess& a) {
    return std::string(a.is_write ? "write" : "read") + " by thread " + std::to_string(a.thread) +
           " (warp " + std::to_string(a.warp) + ") at line " + std::to_string(a.line) +
           (a.is_write ? " stored " : " saw ") + fmt(a.value) + " [event " +
           std::to_string(a.event) + "]";
  };
  for (const auto& g : hz.groups) {
    for (uint32_t i : g.detail) {
      const Hazard& h = hz.hazards[i];
      std::cout << "  " << (h.severity == HazardSeverity::Error ? "ERROR  " : "WARNING") << " "
                << to_string(h.kind) << " " << element_name(arrays, h.buffer, h.element)
                << " block " << h.block << " interval " << h.interval << ": " << who(h.first)
                << "; then " << who(h.second) << "\n";
    }
    if (g.count > g.detail.size())
      std::cout << "  ... and " << (g.count - g.detail.size()) << " more of this group\n";
  }
}

void print_hazards_text(const RacesReport& r, const RacesOptions& o) {
  const HazardReport& hz = r.hazards;
  const Trace& trace = r.traced.trace;
  std::cout << "Hazards (racecheck's model: shared memory, same element, different threads, no "
               "barrier between, each access against the one before it)\n";
  if (hz.trace_truncated)
    std::cout << "  WARNING: the trace is truncated (" << trace.events_dropped
              << " events lost): hazards may be missing; raise --capacity to "
              << trace.events_needed() << "\n";
  if (hz.missed_by_racecheck())
    std::cout << "  racecheck does not check atomics; counting an atomic as a write against "
                 "plain loads and stores: "
              << hz.missed_by_racecheck() << " more hazards (" << hz.with_atomics_verdict
              << ") -- races racecheck misses\n";
  if (hz.hidden_by_shadow())
    std::cout << "  racecheck keeps one access per byte and checks each access against it "
                 "alone; checking against the last write and every read since it: "
              << hz.hidden_by_shadow() << " more hazards (" << hz.since_last_write_verdict
              << ") that racecheck does not report\n";
  if (hz.empty()) {
    std::cout << "  none (" << hz.shared_accesses << " shared accesses checked)\n";
    return;
  }
  std::cout << "  " << hz.total << " hazards: " << hz.errors << " errors, " << hz.warnings
            << " warnings  (RAW " << hz.by_kind[0] << ", WAR " << hz.by_kind[1] << ", WAW "
            << hz.by_kind[2] << ")\n";
  for (const auto& g : hz.groups) {
    const bool first_writes = g.kind != HazardKind::WriteAfterRead;
    char line[256];
    std::snprintf(line, sizeof line,
                  "  %-7s %s %-14s %s line %d (%s) -> line %d (%s): %llu hazards, %llu cells, "
                  "%llu blocks\n",
                  g.severity == HazardSeverity::Error ? "ERROR" : "WARNING", to_string(g.kind),
                  ("(" + std::string(long_name(g.kind)) + ")").c_str(),
                  array_name(trace.config.arrays, g.buffer).c_str(), g.first_line,
                  first_writes ? "write" : "read", g.second_line,
                  g.kind == HazardKind::ReadAfterWrite ? "read" : "write",
                  (unsigned long long)g.count, (unsigned long long)g.elements,
                  (unsigned long long)g.blocks);
    std::cout << line;
  }
  std::cout << "  (" << hz.verdict() << ")\n";
  if (hz.order_dependent())
    std::cout << "  order-dependent: an error is a pair of two warps with no barrier between "
                 "them; which ran first decides its kind (a read and a write: RAW or WAR) and "
                 "which pairs racecheck's one-access shadow sees, so another run may report "
                 "other kinds among those named\n";
  if (o.detail) print_hazard_detail(r, o);
}

void print_stale_text(const RacesReport& r, const RacesOptions& o) {
  const StaleReadReport& stale = r.stale;
  const ArrayTable& arrays = r.traced.trace.config.arrays;
  std::cout << "\nStale reads (loads that saw another value than the synchronised program)\n";
  if (o.no_stale) {
    std::cout << "  not checked (--no-stale)\n";
    return;
  }
  if (!stale.compared) {
    std::cout << "  not checked: " << stale.error << "\n";
    return;
  }
  std::cout << "  " << stale.stale << " of " << stale.loads_compared << " loads ("
            << stale.stale_shared << " shared, " << stale.stale_global << " global)";
  if (stale.unmatched) std::cout << ", " << stale.unmatched << " loads without a counterpart";
  std::cout << "\n";
  for (const auto& l : stale.by_line)
    std::cout << "    line " << l.line << " (" << array_name(arrays, l.buffer) << "): " << l.count
              << "\n";
  if (o.detail)
    for (const auto& s : stale.reads)
      std::cout << "    block " << s.block << " thread " << s.thread << " line " << s.line << " "
                << element_name(arrays, s.buffer, s.element) << ": saw " << fmt(s.got)
                << ", synchronised program saw " << fmt(s.expected) << "\n";
}

void print_output_text(const RacesReport& r, const RacesOptions& o) {
  const OutputDamage& damage = r.damage;
  std::cout << "\nOutput of the traced run\n";
  if (!damage.checked) {
    std::cout << "  not checked: " << damage.error << "\n";
    return;
  }
  if (damage.wrong.empty()) {
    std::cout << "  correct (" << damage.cells << " cells)\n";
    return;
  }
  std::cout << "  " << damage.wrong.size() << " of " << damage.cells
            << " cells wrong, max abs error " << fmt(damage.max_abs_error) << "\n";
  const size_t show = o.detail ? size_t(o.detail_limit) : 5;
  for (size_t i = 0; i < damage.wrong.size() && i < show; ++i) {
    const auto& c = damage.wrong[i];
    std::cout << "    [" << c.row << "][" << c.col << "] = " << fmt(c.got) << ", want "
              << fmt(c.want) << " (error " << fmt(c.abs_error) << ")\n";
  }
}

// The exit status: 1 when the repeated runs failed.
int print_runs_text(const RacesReport& r) {
  const RaceRunsResult& runs = r.runs;
  std::cout << "\nRepeated runs (untraced)\n";
  if (!runs.ok) {
    std::cout << "  failed: " << runs.error << "\n";
    return 1;
  }
  std::cout << "  " << runs.backend_note << "\n";
  std::cout << "  ran: " << runs.plan;
  if (r.default_schedule && !runs.deterministic && runs.backend != BackendKind::Cuda)
    std::cout << " (no --schedule given; the traced run above used lockstep)";
  std::cout << "\n";
  std::cout << "  wrong output in " << runs.wrong_runs << " of " << runs.runs_done << " runs";
  if (runs.runs_done) std::cout << " (" << fmt(100.0 * runs.rate()) << "%)";
  if (runs.wrong_runs) std::cout << ", max abs error " << fmt(runs.max_abs_error);
  std::cout << "\n  wrong cells per run:\n";
  for (size_t i = 0; i < runs.histogram.counts.size(); ++i) {
    std::string label = runs.histogram.lower[i] == runs.histogram.upper[i]
                            ? std::to_string(runs.histogram.lower[i])
                            : std::to_string(runs.histogram.lower[i]) + "-" +
                                  std::to_string(runs.histogram.upper[i]);
    char row[64];
    std::snprintf(row, sizeof row, "    %12s | %4u ", label.c_str(), runs.histogram.counts[i]);
    std::cout << row
              << std::string(runs.runs_done ? 40 * runs.histogram.counts[i] / runs.runs_done : 0,
                             '#')
              << "\n";
  }
  for (const auto& e : runs.run_errors)
    std::cout << "  " << e << "\n";
  std::cout << "\n" << runs.state() << "\n";
  return 0;
}

// The text printer; the exit status: 1 when the repeated runs failed.
int print_text(const RacesReport& r, const RacesOptions& o) {
  const LessonInfo& v = *r.lesson;
  std::cout << v.id << " " << describe(v, r.request.params) << ", "
            << barrier_text(v, r.request.barrier_mask) << "\n";
  std::cout << "traced run: " << r.traced.backend_note << ", " << r.traced.trace.events.size()
            << " events\n\n";
  print_hazards_text(r, o);
  print_stale_text(r, o);
  print_output_text(r, o);
  return print_runs_text(r);
}

int run_races(const RacesOptions& o) {
  if (o.cases) return print_cases(o.json);
  const char* cmd = "races";
  if (o.lesson.lesson_id.empty() && o.lesson.lesson_file.empty())
    return usage_error(cmd, "which lesson? the lessons are: " + lesson_ids(), o.json);
  RacesReport report;
  RunRequest& req = report.request;
  std::vector<std::string> notes;
  const auto err = o.lesson.to_request(req, &notes);
  print_notes(cmd, notes);
  if (err) return usage_error(cmd, *err, o.json);
  report.lesson = find_lesson(req.lesson_id);
  if (o.launch_only) return launch_once(cmd, *report.lesson, req);

  RaceRunsRequest rr;
  rr.base = req;
  rr.runs = o.runs;
  // On the simulator, a schedule the user chose is honoured (lockstep and skew
  // are deterministic: they run once). Without one, the repeated runs try
  // random interleavings from --seed on, and say so.
  report.default_schedule = !o.lesson.given("--schedule");
  if (report.default_schedule) rr.base.schedule.kind = ScheduleKind::Random;
  rr.check_hazards = false;  // the traced run does it
  if (auto e = validate_race_runs(rr)) return usage_error(cmd, *e, o.json);
  if (auto e = make_report(o, rr, report)) return failure(cmd, *e, o.json);
  return o.json ? print_json(report, o) : print_text(report, o);
}

TS_CLI_COMMAND(
    races_cmd, "races",
    "Find shared-memory races (racecheck's model), stale reads, and how often they bite",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<RacesOptions>();
      o->lesson.add_to(sub, LessonOptions::Naming::OptionalPositional);
      o->lesson.seed_without_schedule = true;
      sub.add_option("-r,--runs", o->runs,
                     "Untraced repeated runs; the simulator's random schedule runs seeds "
                     "--seed to --seed + N - 1, its deterministic schedules run once")
          ->check(whole_number(1, kMaxRaceRuns));
      sub.add_flag("--detail", o->detail, "Every hazard, racecheck's hazard mode");
      sub.add_option("--detail-limit", o->detail_limit, "Hazards kept per group (default 50)")
          ->check(whole_number(1, 100000));
      sub.add_flag("--json", o->json, "Machine-readable output");
      sub.add_flag("--no-stale", o->no_stale, "Skip the stale-read comparison");
      sub.add_flag("--cases", o->cases, "List every lesson with its barrier count (for scripts)");
      sub.add_flag("--launch-only", o->launch_only,
                   "One untraced launch and its verdict (for compute-sanitizer racecheck)");
      return [o] { return run_races(*o); };
    });

}  // namespace
}  // namespace ts::cli

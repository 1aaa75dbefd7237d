// `tilescope-cli races <variant> ...`: the race lab, headless.
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
#include <sstream>

#include "cli/command.hpp"
#include "kernels/backend.hpp"
#include "kernels/race_runs.hpp"
#include "trace/hazards.hpp"
#include "trace/stale_reads.hpp"

namespace ts::cli {
namespace {

struct RacesOptions {
  std::string variant;
  Params params;
  bool set_m = false, set_k = false, set_n = false, set_tile = false, set_length = false,
       set_radius = false, set_block = false;
  std::string barriers = "all";
  int runs = 10;
  int skew_ns = 0;
  std::string skew_warps = "0xAAAAAAAA";
  std::string backend = "auto";
  std::string schedule = "lockstep";
  int skew_steps = 64;
  uint64_t seed = 1;
  uint64_t input_seed = 1;
  uint64_t capacity = 8u << 20;
  bool detail = false;
  int detail_limit = 50;
  bool json = false;
  bool launch_only = false;
  bool no_stale = false;
  bool cases = false;
};

// "all", "none", or a list of barrier numbers to keep: "1,2" / "2".
std::optional<std::string> parse_barriers(const std::string& text, const Variant& v,
                                          uint32_t& mask) {
  if (text == "all") {
    mask = all_barriers(v);
    return std::nullopt;
  }
  mask = 0;
  if (text == "none" || text.empty()) return std::nullopt;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long id = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || id < 1 || id > long(v.barriers.size())) {
      std::string allowed =
          v.barriers.empty() ? std::string("it has no barriers: use --barriers none")
                             : "use 1.." + std::to_string(v.barriers.size()) + ", 'all' or 'none'";
      return "--barriers '" + text + "': '" + item + "' is not a barrier of " + v.id + "; " +
             allowed;
    }
    mask |= 1u << (id - 1);
  }
  return validate_barrier_mask(v, mask);
}

std::string barrier_text(const Variant& v, uint32_t mask) {
  if (v.barriers.empty()) return "no barriers";
  std::string kept, removed;
  for (const auto& b : v.barriers) {
    std::string& s = (mask >> (b.id - 1)) & 1u ? kept : removed;
    s += (s.empty() ? "" : ",") + std::to_string(b.id);
  }
  if (removed.empty()) return "all barriers (" + kept + ")";
  return "barriers kept: " + (kept.empty() ? std::string("none") : kept) + ", removed: " + removed;
}

std::string params_text(const Variant& v, const Params& p) {
  std::string s;
  auto add = [&](uint32_t bit, const char* name, int value) {
    if (v.uses & bit) s += std::string(s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  };
  add(kUsesM, "m", p.m);
  add(kUsesK, "k", p.k);
  add(kUsesN, "n", p.n);
  add(kUsesTile, "tile", p.tile);
  add(kUsesLength, "length", p.length);
  add(kUsesRadius, "radius", p.radius);
  add(kUsesBlock, "block", p.block);
  return s;
}

// "tileB[3][7]" for a tile, "shared[12]" for a 1-D array.
std::string element_text(const std::vector<BufferShape>& shapes, Buffer buf, uint32_t element) {
  for (const auto& s : shapes) {
    if (s.id != buf) continue;
    if (s.rows > 1 && s.cols > 0)
      return std::string(to_string(buf)) + "[" + std::to_string(element / s.cols) + "][" +
             std::to_string(element % s.cols) + "]";
  }
  return std::string(to_string(buf)) + "[" + std::to_string(element) + "]";
}

std::string fmt(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

nlohmann::json hazard_json(const Hazard& h, const std::vector<BufferShape>& shapes) {
  auto side = [](const HazardAccess& a) {
    return nlohmann::json{{"event", a.event}, {"thread", a.thread},  {"warp", a.warp},
                          {"line", a.line},   {"write", a.is_write}, {"value", a.value}};
  };
  return {{"kind", to_string(h.kind)}, {"severity", to_string(h.severity)},
          {"block", h.block},          {"buffer", to_string(h.buffer)},
          {"element", h.element},      {"cell", element_text(shapes, h.buffer, h.element)},
          {"interval", h.interval},    {"first", side(h.first)},
          {"second", side(h.second)}};
}

int run_races(const RacesOptions& o) {
  if (o.cases) {
    // For scripts (scripts/racecheck_compare.sh): every variant and its barrier count.
    for (const Variant& v : catalogue())
      std::cout << v.id << " " << v.barriers.size() << "\n";
    return 0;
  }
  if (o.variant.empty()) {
    std::cerr << "error: races needs a variant; known: " << variant_ids() << "\n";
    return 2;
  }
  const Variant* v = find_variant(o.variant);
  if (!v) {
    std::cerr << "error: unknown variant '" << o.variant << "'; known: " << variant_ids() << "\n";
    return 2;
  }
  RunRequest req;
  req.variant = v->id;
  req.params = v->defaults;
  if (o.set_m) req.params.m = o.params.m;
  if (o.set_k) req.params.k = o.params.k;
  if (o.set_n) req.params.n = o.params.n;
  if (o.set_tile) req.params.tile = o.params.tile;
  if (o.set_length) req.params.length = o.params.length;
  if (o.set_radius) req.params.radius = o.params.radius;
  if (o.set_block) req.params.block = o.params.block;
  if (auto err = parse_barriers(o.barriers, *v, req.barrier_mask)) {
    std::cerr << "error: " << *err << "\n";
    return 2;
  }
  if (o.backend == "auto")
    req.backend = BackendChoice::Auto;
  else if (o.backend == "cuda" || o.backend == "gpu")
    req.backend = BackendChoice::Cuda;
  else if (o.backend == "sim" || o.backend == "simulator")
    req.backend = BackendChoice::Sim;
  else {
    std::cerr << "error: --backend '" << o.backend << "': use auto, cuda or sim\n";
    return 2;
  }
  if (o.schedule == "lockstep")
    req.schedule.kind = ScheduleKind::Lockstep;
  else if (o.schedule == "skew" || o.schedule == "warp-skew")
    req.schedule.kind = ScheduleKind::WarpSkew;
  else if (o.schedule == "random")
    req.schedule.kind = ScheduleKind::Random;
  else {
    std::cerr << "error: --schedule '" << o.schedule << "': use lockstep, skew or random\n";
    return 2;
  }
  try {
    req.skew_warps = uint32_t(std::stoul(o.skew_warps, nullptr, 0));
  } catch (...) {
    std::cerr << "error: --skew-warps '" << o.skew_warps
              << "': a 32-bit mask of warps, e.g. 0xAAAAAAAA (the odd warps)\n";
    return 2;
  }
  if (o.skew_steps < 0 || o.skew_steps > 1000000) {
    std::cerr << "error: --skew-steps " << o.skew_steps << ": use 0 to 1000000\n";
    return 2;
  }
  req.schedule.skew_warps = req.skew_warps;
  req.schedule.skew_steps = o.skew_steps;
  req.schedule.seed = o.seed;
  req.skew_ns = o.skew_ns;
  req.input_seed = o.input_seed;
  req.trace_capacity = o.capacity;

  // For compute-sanitizer racecheck: exactly one untraced launch, nothing else.
  if (o.launch_only) {
    req.traced = false;
    RunResult r = run(req);
    if (!r.ok) {
      std::cerr << "error: " << r.error << "\n";
      return 1;
    }
    std::cout << v->id << " " << params_text(*v, req.params) << ", "
              << barrier_text(*v, req.barrier_mask) << ": " << r.verdict.summary() << "\n";
    return 0;
  }

  RaceRunsRequest rr;
  rr.base = req;
  rr.runs = o.runs;
  rr.check_hazards = false;  // the traced run below does it
  if (auto err = validate_race_runs(rr)) {
    std::cerr << "error: " << *err << "\n";
    return 2;
  }

  // One traced run: hazards, stale reads, wrong cells.
  RunRequest traced = req;
  traced.traced = true;
  traced.skew_ns = 0;
  RunResult t = run(traced);
  if (!t.ok) {
    std::cerr << "error: " << t.error << "\n";
    return 1;
  }
  HazardOptions hopt;
  hopt.detail_per_group = uint32_t(std::max(1, o.detail_limit));
  const HazardReport hz = analyze_hazards(t.trace, hopt);
  StaleReadReport stale;
  if (!o.no_stale)
    stale = find_stale_reads(t.trace, req.inputs, size_t(std::max(1, o.detail_limit)));
  const OutputDamage damage = output_damage(t.trace);
  const auto shapes = shared_shapes(*v, req.params);

  // Repeated runs (untraced), in the configured backend.
  RaceRunsResult runs = run_race_runs(rr);
  runs.hazards = hz;
  runs.hazards_checked = !t.trace.truncated();
  if (t.trace.truncated())
    runs.hazards_note = "the trace needs " + std::to_string(t.trace.events_needed()) +
                        " events; raise --capacity or choose a smaller size";

  if (o.json) {
    nlohmann::json j;
    j["variant"] = v->id;
    j["params"] = params_text(*v, req.params);
    j["barrier_mask"] = req.barrier_mask;
    j["barriers"] = barrier_text(*v, req.barrier_mask);
    j["backend"] = t.backend_note;
    j["trace"] = {{"events", t.trace.events.size()},
                  {"truncated", t.trace.truncated()},
                  {"events_needed", t.trace.events_needed()}};
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : hz.groups)
      groups.push_back({{"kind", to_string(g.kind)},
                        {"severity", to_string(g.severity)},
                        {"buffer", to_string(g.buffer)},
                        {"first_line", g.first_line},
                        {"second_line", g.second_line},
                        {"count", g.count},
                        {"elements", g.elements},
                        {"blocks", g.blocks}});
    j["hazards"] = {{"verdict", hz.verdict()},
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
        d.push_back(hazard_json(h, shapes));
      j["hazards"]["detail"] = d;
    }
    if (!o.no_stale) {
      j["stale_reads"] = {{"compared", stale.compared},
                          {"error", stale.error},
                          {"loads_compared", stale.loads_compared},
                          {"stale", stale.stale},
                          {"shared", stale.stale_shared},
                          {"global", stale.stale_global},
                          {"unmatched", stale.unmatched}};
    }
    j["output"] = {{"checked", damage.checked},
                   {"error", damage.error},
                   {"cells", damage.cells},
                   {"wrong", damage.wrong.size()},
                   {"max_abs_error", damage.max_abs_error}};
    nlohmann::json hist = nlohmann::json::array();
    for (size_t i = 0; i < runs.histogram.counts.size(); ++i)
      hist.push_back({{"from", runs.histogram.lower[i]},
                      {"to", runs.histogram.upper[i]},
                      {"runs", runs.histogram.counts[i]}});
    j["runs"] = {{"ok", runs.ok},
                 {"error", runs.error},
                 {"backend", runs.backend_note},
                 {"requested", runs.runs_requested},
                 {"done", runs.runs_done},
                 {"wrong", runs.wrong_runs},
                 {"rate", runs.rate()},
                 {"skew_ns", req.skew_ns},
                 {"wrong_cells_per_run", runs.wrong_cells_per_run},
                 {"max_abs_error", runs.max_abs_error},
                 {"histogram", hist},
                 {"run_errors", runs.run_errors},
                 {"state", runs.state()}};
    std::cout << j.dump(2) << "\n";
    return runs.ok ? 0 : 1;
  }

  std::cout << v->id << " " << params_text(*v, req.params) << ", "
            << barrier_text(*v, req.barrier_mask) << "\n";
  std::cout << "traced run: " << t.backend_note << ", " << t.trace.events.size() << " events\n\n";

  std::cout << "Hazards (racecheck model: shared memory, same element, different threads, no "
               "barrier between)\n";
  if (hz.trace_truncated)
    std::cout << "  WARNING: the trace is truncated (" << t.trace.events_dropped
              << " events lost): hazards may be missing; raise --capacity to "
              << t.trace.events_needed() << "\n";
  if (hz.empty()) {
    std::cout << "  none (" << hz.shared_accesses << " shared accesses checked)\n";
  } else {
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
                    ("(" + std::string(long_name(g.kind)) + ")").c_str(), to_string(g.buffer),
                    g.first_line, first_writes ? "write" : "read", g.second_line,
                    g.kind == HazardKind::ReadAfterWrite ? "read" : "write",
                    (unsigned long long)g.count, (unsigned long long)g.elements,
                    (unsigned long long)g.blocks);
      std::cout << line;
    }
    std::cout << "  (" << hz.verdict() << ")\n";
    if (o.detail) {
      std::cout << "\n  Detail (first " << o.detail_limit << " per group):\n";
      for (const auto& g : hz.groups) {
        for (uint32_t i : g.detail) {
          const Hazard& h = hz.hazards[i];
          auto who = [](const HazardAccess& a) {
            return std::string(a.is_write ? "write" : "read") + " by thread " +
                   std::to_string(a.thread) + " (warp " + std::to_string(a.warp) + ") at line " +
                   std::to_string(a.line) + (a.is_write ? " stored " : " saw ") + fmt(a.value) +
                   " [event " + std::to_string(a.event) + "]";
          };
          std::cout << "  " << (h.severity == HazardSeverity::Error ? "ERROR  " : "WARNING") << " "
                    << to_string(h.kind) << " " << element_text(shapes, h.buffer, h.element)
                    << " block " << h.block << " interval " << h.interval << ": " << who(h.first)
                    << "; then " << who(h.second) << "\n";
        }
        if (g.count > g.detail.size())
          std::cout << "  ... and " << (g.count - g.detail.size()) << " more of this group\n";
      }
    }
  }

  std::cout << "\nStale reads (loads that saw another value than the synchronised program)\n";
  if (o.no_stale)
    std::cout << "  not checked (--no-stale)\n";
  else if (!stale.compared)
    std::cout << "  not checked: " << stale.error << "\n";
  else {
    std::cout << "  " << stale.stale << " of " << stale.loads_compared << " loads ("
              << stale.stale_shared << " shared, " << stale.stale_global << " global)";
    if (stale.unmatched) std::cout << ", " << stale.unmatched << " loads without a counterpart";
    std::cout << "\n";
    for (const auto& l : stale.by_line)
      std::cout << "    line " << l.line << " (" << to_string(l.buffer) << "): " << l.count << "\n";
    if (o.detail)
      for (const auto& s : stale.reads)
        std::cout << "    block " << s.block << " thread " << s.thread << " line " << s.line << " "
                  << element_text(shapes, s.buffer, s.element) << ": saw " << fmt(s.got)
                  << ", synchronised program saw " << fmt(s.expected) << "\n";
  }

  std::cout << "\nOutput of the traced run\n";
  if (!damage.checked)
    std::cout << "  not checked: " << damage.error << "\n";
  else if (damage.wrong.empty())
    std::cout << "  correct (" << damage.cells << " cells)\n";
  else {
    std::cout << "  " << damage.wrong.size() << " of " << damage.cells
              << " cells wrong, max abs error " << fmt(damage.max_abs_error) << "\n";
    const size_t show = o.detail ? size_t(o.detail_limit) : 5;
    for (size_t i = 0; i < damage.wrong.size() && i < show; ++i) {
      const auto& c = damage.wrong[i];
      std::cout << "    [" << c.row << "][" << c.col << "] = " << fmt(c.got) << ", want "
                << fmt(c.want) << " (error " << fmt(c.abs_error) << ")\n";
    }
  }

  std::cout << "\nRepeated runs (untraced";
  if (req.skew_ns > 0) {
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%08X", req.skew_warps);
    std::cout << ", skew " << req.skew_ns << " ns in warps " << mask;
  }
  std::cout << ")\n";
  if (!runs.ok) {
    std::cout << "  failed: " << runs.error << "\n";
    return 1;
  }
  std::cout << "  " << runs.backend_note << "\n";
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

TS_CLI_COMMAND(
    races_cmd, "races",
    "Find shared-memory races (racecheck's model), stale reads, and how often they bite",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<RacesOptions>();
      sub.add_option("variant", o->variant, "Catalogue id (see `list`)");
      auto param = [&](const char* name, int& field, bool& set, const char* help) {
        sub.add_option(name, field, help)->each([&set](const std::string&) { set = true; });
      };
      param("--m", o->params.m, o->set_m, "Rows of A and C");
      param("--k", o->params.k, o->set_k, "Columns of A, rows of B");
      param("-n,--n", o->params.n, o->set_n, "Size (square) or columns of B and C");
      param("-t,--tile", o->params.tile, o->set_tile, "Tile width: 2, 4, 8, 16 or 32");
      param("--length", o->params.length, o->set_length, "Stencil: number of elements");
      param("--radius", o->params.radius, o->set_radius, "Stencil: neighbours on each side");
      param("--block", o->params.block, o->set_block, "Threads per block (side for naive matmul)");
      sub.add_option("-b,--barriers", o->barriers,
                     "Barriers to keep: all (default), none, or numbers like 1,2");
      sub.add_option("-r,--runs", o->runs, "Untraced repeated runs (1..10000)");
      sub.add_option("--skew-ns", o->skew_ns,
                     "GPU: the skewed warps sleep this long at the kernel's delay point");
      sub.add_option("--skew-warps", o->skew_warps,
                     "Warps to skew, a 32-bit mask (default 0xAAAAAAAA: odd warps)");
      sub.add_option("--backend", o->backend, "auto (default), cuda or sim");
      sub.add_option("--schedule", o->schedule,
                     "Simulator traced run: lockstep (default), skew or random");
      sub.add_option("--skew-steps", o->skew_steps, "Simulator skew: steps behind");
      sub.add_option("--seed", o->seed, "Simulator random schedule seed");
      sub.add_option("--input-seed", o->input_seed, "Seed of the input matrices");
      sub.add_option("--capacity", o->capacity, "Trace capacity in events");
      sub.add_flag("--detail", o->detail, "Every hazard, racecheck's hazard mode");
      sub.add_option("--detail-limit", o->detail_limit, "Hazards kept per group (default 50)");
      sub.add_flag("--json", o->json, "Machine-readable output");
      sub.add_flag("--no-stale", o->no_stale, "Skip the stale-read comparison");
      sub.add_flag("--cases", o->cases, "List every variant with its barrier count (for scripts)");
      sub.add_flag("--launch-only", o->launch_only,
                   "One untraced launch and its verdict (for compute-sanitizer racecheck)");
      return [o] { return run_races(*o); };
    });

}  // namespace
}  // namespace ts::cli

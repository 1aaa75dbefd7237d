// The summary of a trace, shared by `run` and `inspect`.
#include "cli/report.hpp"

#include "analysis/atomic_contention.hpp"
#include "analysis/verdict.hpp"
#include "analysis/warp_access.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace ts::cli {

int usage_error(const std::string& cmd, const std::string& msg, bool json) {
  if (json)
    std::cout << nlohmann::json{{"ok", false}, {"usage_error", true}, {"error", msg}}.dump(
                     2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  std::fprintf(stderr, "tilescope-cli %s: error: %s\n", cmd.c_str(), msg.c_str());
  return kExitUsage;
}

void print_notes(const std::string& cmd, const std::vector<std::string>& notes) {
  for (const auto& n : notes)
    std::fprintf(stderr, "tilescope-cli %s: note: %s\n", cmd.c_str(), n.c_str());
}

int failure(const std::string& cmd, const std::string& msg, bool json) {
  if (json)
    std::cout << nlohmann::json{{"ok", false}, {"error", msg}}.dump(
                     2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  std::fprintf(stderr, "tilescope-cli %s: %s\n", cmd.c_str(), msg.c_str());
  return kExitFailed;
}

int lesson_file_failure(const std::string& cmd, const LessonFile& f, bool json) {
  if (json) {
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const CompilerDiagnostic& d : f.diagnostics)
      diagnostics.push_back({{"file", d.file},
                             {"line", d.line},
                             {"column", d.column},
                             {"severity", d.severity},
                             {"message", d.message}});
    std::cout << nlohmann::json{{"ok", false},
                                {"error", f.error},
                                {"lesson_file", f.path},
                                {"diagnostics", diagnostics}}
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  }
  std::fprintf(stderr, "tilescope-cli %s: %s", cmd.c_str(), describe_failure(f).c_str());
  return kExitFailed;
}

std::string barrier_summary(const Trace& t) {
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (!v)
    return "mask 0x" + [&] {
      std::ostringstream s;
      s << std::hex << t.config.barrier_mask.mask();
      return s.str();
    }();
  if (v->barriers.empty()) return "none";
  std::string s;
  for (const auto& b : v->barriers) {
    if (!s.empty()) s += ", ";
    s += std::to_string(b.id) + " (line " + std::to_string(b.line) + ") " +
         (b.warp_scope ? "__syncwarp " : "") + (t.config.barriers().keeps(b.id) ? "on" : "OFF");
  }
  return s;
}

std::string params_summary(const Trace& t) {
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  return describe(v ? v->uses : 0x7fu, t.config.params);
}

namespace {

std::string schedule_summary(const Trace& t) {
  const RunConfig& c = t.config;
  if (c.backend == BackendKind::Cuda)
    return c.skew_ns ? "GPU, skew " + std::to_string(c.skew_ns) + " ns" : "GPU";
  std::string s = to_string(c.schedule.kind);
  if (c.schedule.kind == ScheduleKind::WarpSkew) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " (warps 0x%x by %d steps)", c.schedule.skew_warps,
                  c.schedule.skew_steps);
    s += buf;
  } else if (c.schedule.kind == ScheduleKind::Random) {
    s += " (seed " + std::to_string(c.schedule.seed) + ")";
  }
  return s;
}

std::string fixed(double v, int digits = 2) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// 1,234,567
std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

const char* plural(uint64_t n, const char* one, const char* many) {
  return n == 1 ? one : many;
}

// How the memory system served the warps' accesses, in plain words, with the
// source lines that cost extra wavefronts or sectors.
void print_warp_accesses(std::ostream& out, const Trace& t, const WarpAccesses& w) {
  out << "memory, per warp access, as the source asks for it"
      << (w.partial ? " (partial: the trace is truncated)" : "") << ":\n";
  const auto site_name = [&](const SiteTotals& s) {
    return "line " + std::to_string(s.line) + " " + access_text(t, s.line, s.array);
  };
  for (EventKind k : {EventKind::SharedLoad, EventKind::SharedStore, EventKind::SharedAtomic}) {
    const AccessTotals& a = w.totals(k);
    if (!a.requests) continue;
    out << "  " << to_string(k) << "s: " << grouped(a.requests) << " warp "
        << plural(a.requests, "access", "accesses") << ", " << grouped(a.wavefronts)
        << " wavefronts";
    if (!a.bank_conflicts()) {
      out << ": no bank conflicts\n";
      continue;
    }
    out << " for an ideal " << grouped(a.ideal_wavefronts) << ": " << grouped(a.bank_conflicts())
        << " bank conflicts (extra wavefronts)\n";
    for (const SiteTotals& s : w.per_site)
      if (s.kind == k && s.totals.bank_conflicts())
        out << "    " << site_name(s) << ": up to " << s.totals.worst_degree
            << "-way conflicts, in " << grouped(s.totals.conflicted) << " of "
            << grouped(s.totals.requests) << " warp accesses, "
            << grouped(s.totals.bank_conflicts()) << " extra wavefronts\n";
  }
  if (const AccessTotals& c = w.constant_loads; c.requests) {
    out << "  constant loads: " << grouped(c.requests) << " warp "
        << plural(c.requests, "access", "accesses") << " through the constant cache, "
        << grouped(c.constant_addresses) << " distinct addresses served one after another";
    if (!c.serialised())
      out << ": every warp read one address at a time (broadcasts only)\n";
    else
      out << ", " << grouped(c.serialised())
          << " more than one per access (a warp reading several addresses waits for each)\n";
  }
  for (EventKind k : {EventKind::GlobalLoad, EventKind::GlobalStore, EventKind::GlobalAtomic}) {
    const AccessTotals& a = w.totals(k);
    if (!a.requests) continue;
    out << "  " << to_string(k) << "s: " << grouped(a.requests) << " "
        << plural(a.requests, "request", "requests") << ", " << grouped(a.sectors)
        << " sectors of 32 bytes, " << fixed(a.sectors_per_request()) << " per request (ideal "
        << fixed(a.ideal_sectors_per_request()) << "), " << grouped(a.lines)
        << " cache lines of 128 bytes\n";
    if (a.sectors > a.ideal_sectors)
      for (const SiteTotals& s : w.per_site)
        if (s.kind == k && s.totals.sectors > s.totals.ideal_sectors &&
            !s.totals.constant_addresses)
          out << "    " << site_name(s) << ": " << fixed(s.totals.sectors_per_request())
              << " sectors per request (ideal " << fixed(s.totals.ideal_sectors_per_request())
              << ")\n";
  }
}

// The most contended elements of the atomically updated arrays (a histogram's bins).
constexpr size_t kHottestShown = 8;

void print_contention(std::ostream& out, const Trace& t, const AtomicContention& c) {
  out << "atomic contention" << (c.partial ? " (partial: the trace is truncated)" : "")
      << ": lanes of one warp instruction on one element are served one after another\n";
  for (const ArrayContention& a : c.arrays)
    out << "  " << array_name(t.config.arrays, a.array) << " (" << to_string(a.space)
        << "): " << grouped(a.atomics) << " atomics in " << grouped(a.warp_instructions)
        << " warp instructions, at most " << a.most_lanes << plural(a.most_lanes, " lane", " lanes")
        << " on one element at once\n";
  for (const ElementContention& e : c.hottest(kHottestShown))
    out << "    " << element_name(t.config.arrays, e.array, e.element) << ": " << grouped(e.atomics)
        << " atomics, at most " << e.most_lanes << plural(e.most_lanes, " lane", " lanes")
        << " at once, " << grouped(e.queued) << " waited\n";
}

nlohmann::json contention_json(const Trace& t, const AtomicContention& c) {
  using nlohmann::json;
  json arrays = json::array();
  for (const ArrayContention& a : c.arrays)
    arrays.push_back({{"array", array_name(t.config.arrays, a.array)},
                      {"space", to_string(a.space)},
                      {"atomics", a.atomics},
                      {"warp_instructions", a.warp_instructions},
                      {"most_lanes", a.most_lanes}});
  json hottest = json::array();
  for (const ElementContention& e : c.hottest(kHottestShown))
    hottest.push_back({{"array", array_name(t.config.arrays, e.array)},
                       {"element", e.element},
                       {"name", element_name(t.config.arrays, e.array, e.element)},
                       {"atomics", e.atomics},
                       {"most_lanes", e.most_lanes},
                       {"queued", e.queued}});
  return {{"partial", c.partial}, {"arrays", arrays}, {"hottest", hottest}};
}

nlohmann::json warp_accesses_json(const Trace& t, const WarpAccesses& w) {
  using nlohmann::json;
  const auto totals = [](const AccessTotals& a, bool shared) {
    json j = {{"requests", a.requests}, {"lanes", a.lanes}};
    if (shared) {
      j["wavefronts"] = a.wavefronts;
      j["ideal_wavefronts"] = a.ideal_wavefronts;
      j["bank_conflicts"] = a.bank_conflicts();
      j["conflicted_requests"] = a.conflicted;
      j["worst_degree"] = a.worst_degree;
    } else {
      j["sectors"] = a.sectors;
      j["ideal_sectors"] = a.ideal_sectors;
      j["lines"] = a.lines;
      j["sectors_per_request"] = a.sectors_per_request();
      j["ideal_sectors_per_request"] = a.ideal_sectors_per_request();
    }
    return j;
  };
  json j = {{"partial", w.partial}};
  // Constant-memory reads: no global requests; one address at a time.
  j["constant_loads"] = {{"requests", w.constant_loads.requests},
                         {"lanes", w.constant_loads.lanes},
                         {"distinct_addresses", w.constant_loads.constant_addresses}};
  for (EventKind k : {EventKind::SharedLoad, EventKind::SharedStore, EventKind::GlobalLoad,
                      EventKind::GlobalStore, EventKind::SharedAtomic, EventKind::GlobalAtomic}) {
    std::string name = to_string(k);
    std::replace(name.begin(), name.end(), ' ', '_');
    j[name + "s"] = totals(w.totals(k), shared_access(k));
  }
  json sites = json::array();
  for (const SiteTotals& s : w.per_site) {
    json x = totals(s.totals, shared_access(s.kind));
    if (s.totals.constant_addresses) {
      x = {{"requests", s.totals.requests},
           {"lanes", s.totals.lanes},
           {"distinct_addresses", s.totals.constant_addresses}};
      x["space"] = "constant";
    }
    x["line"] = s.line;
    x["kind"] = to_string(s.kind);
    x["array"] = array_name(t.config.arrays, s.array);
    x["source"] = access_text(t, s.line, s.array);
    sites.push_back(x);
  }
  j["sites"] = sites;
  return j;
}

}  // namespace

void print_summary(std::ostream& out, const Trace& t, const Counters& c,
                   const std::optional<Verdict>& verdict) {
  const RunConfig& cfg = t.config;
  const LessonInfo* v = find_lesson(cfg.lesson_id);
  const auto& g = cfg.geometry;
  out << "lesson:   " << cfg.lesson_id;
  if (v) out << " (" << v->title << ")";
  out << "\nparams:   " << params_summary(t) << "\nbarriers: " << barrier_summary(t)
      << "\ndevice:   " << cfg.device_name << " [" << to_string(cfg.backend) << "], schedule "
      << schedule_summary(t) << "\nlaunch:   grid " << g.grid.x << " x " << g.grid.y
      << " blocks of " << g.block.x << " x " << g.block.y << " threads";
  if (g.static_shared_bytes) out << ", " << g.static_shared_bytes << " B shared";
  if (g.dynamic_shared_bytes) out << ", " << g.dynamic_shared_bytes << " B dynamic shared";
  out << "\n";
  if (verdict) {
    out << "verdict:  " << (verdict->checked ? (verdict->correct ? "" : "WRONG: ") : "")
        << verdict->summary() << "\n";
  }
  out << "events:   " << t.events.size() << " recorded";
  if (t.capacity) out << " (capacity " << t.capacity << ")";
  out << "\n";
  out << "  global loads   " << std::setw(10) << c.global_loads();
  const auto is_constant = [&](ArraySlot slot) {
    const ArrayInfo* a = t.array(slot);
    return a && a->space == Space::Constant;
  };
  std::string per, constant;
  for (const auto& e : c.global_loads_per_element)
    (is_constant(e.buffer) ? constant : per) +=
        std::string((is_constant(e.buffer) ? constant : per).empty() ? "" : ", ") +
        array_name(t.config.arrays, e.buffer) + " " + std::to_string(c.loads[e.buffer]);
  if (!per.empty()) out << "   (" << per << ")";
  if (c.constant_loads)
    out << "\n  constant loads " << std::setw(10) << c.constant_loads << "   (" << constant
        << "; constant memory, not global)";
  out << "\n  global stores  " << std::setw(10) << c.global_stores() << "\n  shared stores  "
      << std::setw(10) << c.shared_stores() << "\n  shared loads   " << std::setw(10)
      << c.shared_loads() << "\n  barrier waits  " << std::setw(10) << c.barrier_arrivals()
      << "   (thread arrivals)\n";
  if (c.shared_atomics() || c.global_atomics())
    out << "  shared atomics " << std::setw(10) << c.shared_atomics() << "\n  global atomics "
        << std::setw(10) << c.global_atomics() << "\n";
  if (c.out_of_range) out << "  out of range   " << std::setw(10) << c.out_of_range << "\n";
  out << "  bytes: global " << c.global_bytes_read << " read, " << c.global_bytes_written
      << " written; shared " << c.shared_bytes_read << " read, " << c.shared_bytes_written
      << " written\n";
  if (c.constant_bytes_read) out << "  bytes: constant " << c.constant_bytes_read << " read\n";
  for (const auto& e : c.global_loads_per_element)
    out << "  " << (is_constant(e.buffer) ? "constant" : "global") << " loads per element of "
        << array_name(t.config.arrays, e.buffer) << " (" << e.rows << " x " << e.cols << "): min "
        << e.min << ", max " << e.max << ", mean " << fixed(e.mean) << "\n";
  if (c.output_elements) {
    out << "  global loads per output element: " << fixed(c.global_loads_per_output);
    if (t.truncated())
      out << " (partial: the trace is truncated)";
    else if (const auto x = expected_for(t))
      out << " (closed form: " << fixed(x->global_loads_per_output) << ")";
    out << "\n";
  }
  if (!t.events.empty()) {
    const AccessLevels levels = access_levels(t);
    print_warp_accesses(out, t, levels.source);
    print_compiled_level(out, t, levels);
  }
  if (const AtomicContention ac = atomic_contention(t); !ac.empty()) print_contention(out, t, ac);
  if (t.truncated())
    out << "TRUNCATED: the trace holds " << t.events.size() << " of " << t.events_needed()
        << " events (" << t.events_dropped << " dropped); run again with --capacity "
        << t.events_needed() << " or more to record all of them\n";
}

nlohmann::json summary_json(const Trace& t, const Counters& c,
                            const std::optional<Verdict>& verdict) {
  using nlohmann::json;
  const RunConfig& cfg = t.config;
  const Params& p = cfg.params;
  json j;
  j["variant"] = cfg.lesson_id;
  j["params"] = {{"m", p.m},           {"k", p.k},           {"n", p.n},        {"tile", p.tile},
                 {"length", p.length}, {"radius", p.radius}, {"block", p.block}};
  json kept = json::array();
  if (const LessonInfo* v = find_lesson(cfg.lesson_id))
    for (const auto& b : v->barriers)
      if (cfg.barriers().keeps(b.id)) kept.push_back(b.id);
  j["barriers_kept"] = kept;
  j["barrier_mask"] = cfg.barrier_mask.mask();
  j["backend"] = to_string(cfg.backend);
  j["device"] = cfg.device_name;
  j["schedule"] = {{"kind", to_string(cfg.schedule.kind)},
                   {"skew_warps", cfg.schedule.skew_warps},
                   {"skew_steps", cfg.schedule.skew_steps},
                   {"seed", cfg.schedule.seed}};
  j["skew_ns"] = cfg.skew_ns;
  j["input_seed"] = cfg.input_seed;
  const auto& g = cfg.geometry;
  j["grid"] = {g.grid.x, g.grid.y, g.grid.z};
  j["block"] = {g.block.x, g.block.y, g.block.z};
  if (verdict) {
    json wrong = json::array();
    for (size_t i = 0; i < verdict->wrong_cells.size() && i < 1000; ++i)
      wrong.push_back(verdict->wrong_cells[i]);
    j["verdict"] = {{"checked", verdict->checked},
                    {"correct", verdict->correct},
                    {"max_abs_error", verdict->max_abs_error},
                    {"max_rel_error", verdict->max_rel_error},
                    {"tolerance", verdict->tolerance},
                    {"wrong_count", verdict->wrong_cells.size()},
                    {"wrong_cells", wrong},
                    {"summary", verdict->summary()}};
  }
  json counts = {{"global_loads", c.global_loads()},
                 {"constant_loads", c.constant_loads},
                 {"constant_bytes_read", c.constant_bytes_read},
                 {"global_stores", c.global_stores()},
                 {"shared_loads", c.shared_loads()},
                 {"shared_stores", c.shared_stores()},
                 {"barrier_arrivals", c.barrier_arrivals()},
                 {"shared_atomics", c.shared_atomics()},
                 {"global_atomics", c.global_atomics()},
                 {"out_of_range", c.out_of_range},
                 {"global_bytes_read", c.global_bytes_read},
                 {"global_bytes_written", c.global_bytes_written},
                 {"shared_bytes_read", c.shared_bytes_read},
                 {"shared_bytes_written", c.shared_bytes_written},
                 {"output_elements", c.output_elements},
                 {"global_loads_per_output", c.global_loads_per_output}};
  json per_buffer = json::object();
  for (int b = 1; b <= kMaxArrays; ++b)
    if (c.loads[b] || c.stores[b] || c.atomics[b]) {
      json& x = per_buffer[array_name(t.config.arrays, ArraySlot(b))];
      x = {{"loads", c.loads[b]}, {"stores", c.stores[b]}};
      if (c.atomics[b]) x["atomics"] = c.atomics[b];
    }
  counts["per_buffer"] = per_buffer;
  json heat = json::object();
  for (const auto& e : c.global_loads_per_element)
    heat[array_name(t.config.arrays, e.buffer)] = {
        {"rows", e.rows}, {"cols", e.cols}, {"min", e.min}, {"max", e.max}, {"mean", e.mean}};
  counts["global_loads_per_element"] = heat;
  if (const auto x = expected_for(t))
    counts["expected"] = {{"global_loads", x->counts.global_loads},
                          {"global_stores", x->counts.global_stores},
                          {"shared_loads", x->counts.shared_loads},
                          {"shared_stores", x->counts.shared_stores},
                          {"barrier_arrivals", x->counts.barrier_arrivals},
                          {"warp_shuffles", x->counts.warp_shuffles},
                          {"shared_atomics", x->counts.shared_atomics},
                          {"global_atomics", x->counts.global_atomics},
                          {"constant_loads", x->counts.constant_loads},
                          {"global_loads_per_output", x->global_loads_per_output}};
  if (!t.events.empty()) {
    // Named as Nsight Compute names its counters (scripts/ncu_compare.sh reads
    // them): "ncu" counts what the GPU executes (the compiled level, where the
    // compiled-code table has the kernel; else the source level, and
    // "ncu_level" says so), "ncu_source" what the source asks for.
    const AccessLevels levels = access_levels(t);
    const auto ncu = [](const WarpAccesses& w) {
      json x = json::object();
      for (const NcuCounter& n : ncu_counters(w))
        x[n.name] = n.value;
      return x;
    };
    counts["ncu"] = ncu(levels.compiled);
    counts["ncu_source"] = ncu(levels.source);
    counts["ncu_level"] = levels.code ? "compiled" : "source";
    counts["compiled_code"] = compiled_level_json(t, levels);
    counts["warp_access"] = warp_accesses_json(t, levels.source);
    if (const AtomicContention ac = atomic_contention(t); !ac.empty())
      counts["atomic_contention"] = contention_json(t, ac);
  }
  j["counters"] = counts;
  j["events"] = {{"recorded", t.events.size()},
                 {"dropped", t.events_dropped},
                 {"needed", t.events_needed()},
                 {"capacity", t.capacity},
                 {"truncated", t.truncated()}};
  return j;
}

}  // namespace ts::cli

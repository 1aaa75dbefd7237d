// `tilescope-cli run <variant>`: run a lesson on the GPU or the simulator,
// print the backend, the verdict and the counters, and save the trace.
#include <charconv>
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/report.hpp"
#include "kernels/backend.hpp"
#include "trace/trace_file.hpp"

namespace ts::cli {
namespace {

struct RunOptions {
  std::string variant;
  int m = 0, k = 0, n = 0, tile = 0, length = 0, radius = 0, block = 0;
  CLI::Option *o_m, *o_k, *o_n, *o_tile, *o_length, *o_radius, *o_block;
  std::vector<std::string> keep, drop;
  CLI::Option *o_keep, *o_drop;
  std::string backend = "auto", schedule = "lockstep", skew_warps = "odd", inputs = "int";
  CLI::Option *o_schedule, *o_seed, *o_skew_warps, *o_skew_steps;
  uint64_t seed = 1, input_seed = 1;
  int skew_steps = 64, skew_ns = 0;
  uint64_t capacity = 8u << 20;
  std::string out;
  bool json = false, check = false;
};

// "2" -> 2; anything else -> nullopt.
std::optional<long long> parse_int(const std::string& s, int base = 10) {
  long long v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) b += 2;
  auto r = std::from_chars(b, e, v, base);
  if (r.ec != std::errc() || r.ptr != e || b == e) return std::nullopt;
  return v;
}

std::string barrier_names(const Variant& v) {
  if (v.barriers.empty()) return std::string(v.id) + " has no barriers";
  std::string s = std::string(v.id) + " has barrier";
  s += v.barriers.size() > 1 ? "s " : " ";
  for (size_t i = 0; i < v.barriers.size(); ++i) {
    if (i) s += i + 1 == v.barriers.size() ? " and " : ", ";
    s += std::to_string(v.barriers[i].id) + " (line " + std::to_string(v.barriers[i].line) + ")";
  }
  return s;
}

// Barrier numbers from "1,2" lists: each must exist in the variant.
std::optional<std::string> barrier_bits(const Variant& v, const std::vector<std::string>& items,
                                        uint32_t& bits) {
  bits = 0;
  for (const auto& item : items) {
    if (item == "none" || item.empty()) continue;
    const auto id = parse_int(item);
    if (!id) return "'" + item + "' is not a barrier number; " + barrier_names(v);
    if (*id < 1 || *id > int(v.barriers.size()))
      return "there is no barrier " + item + ": " + barrier_names(v);
    bits |= 1u << (*id - 1);
  }
  return std::nullopt;
}

// "odd", "even", "all", "none", "0xAA" (a mask) or "1,3" (warp numbers).
std::optional<uint32_t> warp_mask(const std::string& s) {
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

int run_command(const RunOptions& o) {
  const char* cmd = "run";
  const Variant* v = find_variant(o.variant);
  if (!v)
    return usage_error(cmd, "unknown variant '" + o.variant + "'; the catalogue has: " +
                                variant_ids() + " (tilescope-cli list shows them)");
  RunRequest req;
  req.variant = v->id;
  req.params = v->defaults;
  struct P {
    CLI::Option* opt;
    int value;
    int* field;
    uint32_t bit;
  } ps[] = {{o.o_m, o.m, &req.params.m, kUsesM},
            {o.o_k, o.k, &req.params.k, kUsesK},
            {o.o_n, o.n, &req.params.n, kUsesN},
            {o.o_tile, o.tile, &req.params.tile, kUsesTile},
            {o.o_length, o.length, &req.params.length, kUsesLength},
            {o.o_radius, o.radius, &req.params.radius, kUsesRadius},
            {o.o_block, o.block, &req.params.block, kUsesBlock}};
  for (const P& p : ps) {
    if (!p.opt->count()) continue;
    if (!(v->uses & p.bit)) {
      std::fprintf(stderr, "tilescope-cli run: note: %s does not use %s; ignored\n", v->id,
                   p.opt->get_name().c_str());
      continue;
    }
    *p.field = p.value;
  }

  uint32_t mask = all_barriers(*v);
  if (o.o_keep->count()) {
    if (auto e = barrier_bits(*v, o.keep, mask)) return usage_error(cmd, *e);
  } else if (o.o_drop->count()) {
    uint32_t drop = 0;
    if (auto e = barrier_bits(*v, o.drop, drop)) return usage_error(cmd, *e);
    mask &= ~drop;
  }
  if (auto e = validate_barrier_mask(*v, mask)) return usage_error(cmd, *e);
  req.barrier_mask = mask;

  req.backend = o.backend == "cuda"  ? BackendChoice::Cuda
                : o.backend == "sim" ? BackendChoice::Sim
                                     : BackendChoice::Auto;
  req.schedule.kind = o.schedule == "skew"     ? ScheduleKind::WarpSkew
                      : o.schedule == "random" ? ScheduleKind::Random
                                               : ScheduleKind::Lockstep;
  req.schedule.seed = o.seed;
  req.schedule.skew_steps = o.skew_steps;
  const auto warps = warp_mask(o.skew_warps);
  if (!warps)
    return usage_error(cmd, "--skew-warps '" + o.skew_warps +
                                "': give odd, even, all, none, a mask like 0xAA or warp numbers "
                                "0 to 31 like 1,3");
  req.schedule.skew_warps = *warps;
  req.skew_warps = *warps;
  req.skew_ns = o.skew_ns;
  if ((o.o_seed->count() && req.schedule.kind != ScheduleKind::Random) ||
      ((o.o_skew_warps->count() || o.o_skew_steps->count()) &&
       req.schedule.kind != ScheduleKind::WarpSkew && o.skew_ns == 0))
    std::fprintf(stderr,
                 "tilescope-cli run: note: --seed goes with --schedule random, --skew-warps and "
                 "--skew-steps with --schedule skew (or --skew-ns on the GPU)\n");
  if (o.capacity == 0)
    return usage_error(cmd, "--capacity 0: a trace needs room for 1 event or more");
  req.trace_capacity = o.capacity;
  req.input_seed = o.input_seed;
  req.inputs = o.inputs == "uniform" ? InputKind::Uniform : InputKind::SmallIntegers;

  // Parameters are checked here too, against the backend that will run them,
  // so that a bad value is a usage error (2) and not a failed run (1).
  const bool gpu = req.backend == BackendChoice::Cuda ||
                   (req.backend == BackendChoice::Auto && cuda_status().usable);
  const DeviceLimits lim =
      gpu && cuda_status().usable ? cuda_status().limits() : simulator_model().limits();
  if (auto e = validate(*v, req.params, lim)) return usage_error(cmd, *e);

  RunResult r = run(req);
  if (!r.ok) {
    if (!r.backend_note.empty() && !o.json) std::cout << "backend:  " << r.backend_note << "\n";
    return failure(cmd, r.error.empty() ? "the run failed without a message" : r.error, o.json);
  }
  const Counters c = count_accesses(r.trace);
  std::string saved_error;
  bool saved = false;
  if (!o.out.empty()) saved = save_trace(r.trace, o.out, &saved_error);

  if (o.json) {
    nlohmann::json j = summary_json(r.trace, c, r.verdict);
    j["ok"] = true;
    j["backend_note"] = r.backend_note;
    j["faults"] = r.faults;
    j["kernel_ms"] = r.kernel_ms;
    if (!o.out.empty()) j["trace_file"] = saved ? nlohmann::json(o.out) : nlohmann::json();
    if (!saved_error.empty()) j["trace_file_error"] = saved_error;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "backend:  " << r.backend_note << "\n";
    print_summary(std::cout, r.trace, c, r.verdict);
    if (!r.faults.empty()) {
      std::cout << "faults:   " << r.faults.size() << "\n";
      for (size_t i = 0; i < r.faults.size() && i < 20; ++i)
        std::cout << "  " << r.faults[i] << "\n";
      if (r.faults.size() > 20) std::cout << "  ... " << r.faults.size() - 20 << " more\n";
    }
    if (saved) std::cout << "trace:    " << o.out << "\n";
  }
  if (!saved_error.empty()) return failure(cmd, saved_error, false);
  if (o.check && r.verdict.checked && !r.verdict.correct) return kExitWrongOutput;
  return kExitOk;
}

TS_CLI_COMMAND(
    run_cmd, "run", "Run a variant on the GPU or the CPU simulator and print verdict and counters",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<RunOptions>();
      sub.add_option("variant", o->variant, "Catalogue id (tilescope-cli list)")->required();
      o->o_m = sub.add_option("--m", o->m, "Rows of A and C (rectangular multiply)");
      o->o_k = sub.add_option("--k", o->k, "Columns of A, rows of B (rectangular multiply)");
      o->o_n = sub.add_option("--n", o->n, "Matrix size (square) or columns of B and C");
      o->o_tile = sub.add_option("--tile", o->tile, "Tile width: 2, 4, 8, 16 or 32");
      o->o_length = sub.add_option("--length", o->length, "Stencil: number of elements");
      o->o_radius = sub.add_option("--radius", o->radius, "Stencil: neighbours on each side");
      o->o_block = sub.add_option("--block", o->block, "Threads per block (or block side)");
      o->o_keep = sub.add_option("--barriers", o->keep,
                                 "Keep only these barriers, e.g. 1 or 1,2 (none: remove all)")
                      ->delimiter(',');
      o->o_drop = sub.add_option("--no-barrier", o->drop, "Remove these barriers, e.g. 2 or 1,2")
                      ->delimiter(',');
      o->o_keep->excludes(o->o_drop);
      sub.add_option("--backend", o->backend, "auto (GPU if usable), cuda or sim")
          ->check(CLI::IsMember({"auto", "cuda", "sim"}))
          ->capture_default_str();
      o->o_schedule =
          sub.add_option("--schedule", o->schedule, "Simulator: lockstep, skew or random")
              ->check(CLI::IsMember({"lockstep", "skew", "random"}))
              ->capture_default_str();
      o->o_seed = sub.add_option("--seed", o->seed, "Simulator: seed of the random schedule");
      o->o_skew_warps = sub.add_option("--skew-warps", o->skew_warps,
                                       "Warps to delay: odd, even, all, 0xAA or 1,3")
                            ->capture_default_str();
      o->o_skew_steps = sub.add_option("--skew-steps", o->skew_steps,
                                       "Simulator: steps the skewed warps fall behind")
                            ->check(CLI::Range(0, 1 << 20))
                            ->capture_default_str();
      sub.add_option("--skew-ns", o->skew_ns, "GPU: nanoseconds the skewed warps sleep")
          ->check(CLI::Range(0, 1'000'000));
      sub.add_option("--capacity", o->capacity, "Trace capacity in events (40 bytes each)")
          ->capture_default_str();
      sub.add_option("--inputs", o->inputs, "int (small integers) or uniform in [-1, 1]")
          ->check(CLI::IsMember({"int", "uniform"}))
          ->capture_default_str();
      sub.add_option("--input-seed", o->input_seed, "Seed of the inputs")->capture_default_str();
      sub.add_option("-o,--output", o->out, "Write the trace to this file (.tstrace)");
      sub.add_flag("--json", o->json, "Print one JSON object instead of text");
      sub.add_flag("--check", o->check, "Exit with 3 when the output is wrong");
      return [o] { return run_command(*o); };
    });

}  // namespace
}  // namespace ts::cli

#include "cli/run_options.hpp"

#include <charconv>
#include <cstdio>

namespace ts::cli {
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

std::optional<std::string> barrier_bits(const Variant& v, const std::vector<std::string>& items,
                                        uint32_t& bits) {
  bits = 0;
  for (const auto& item : items) {
    if (item == "none" || item.empty()) continue;
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

}  // namespace

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

void LessonOptions::add_to(CLI::App& sub, bool variant_required) {
  auto* var = sub.add_option("variant", variant, "Catalogue id (tilescope-cli list)");
  if (variant_required) var->required();
  o_m = sub.add_option("--m", m, "Rows of A and C (rectangular multiply)");
  o_k = sub.add_option("--k", k, "Columns of A, rows of B (rectangular multiply)");
  o_n = sub.add_option("--n", n, "Matrix size (square) or columns of B and C");
  o_tile = sub.add_option("--tile", tile, "Tile width: 2, 4, 8, 16 or 32");
  o_length = sub.add_option("--length", length, "Stencil: number of elements");
  o_radius = sub.add_option("--radius", radius, "Stencil: neighbours on each side");
  o_block = sub.add_option("--block", block, "Threads per block (or block side)");
  o_keep = sub.add_option("--barriers", keep,
                          "Keep only these barriers, e.g. 1 or 1,2 (none: remove all)")
               ->delimiter(',');
  o_drop =
      sub.add_option("--no-barrier", drop, "Remove these barriers, e.g. 2 or 1,2")->delimiter(',');
  o_keep->excludes(o_drop);
  sub.add_option("--backend", backend, "auto (GPU if usable), cuda or sim")
      ->check(CLI::IsMember({"auto", "cuda", "sim"}))
      ->capture_default_str();
  sub.add_option("--schedule", schedule, "Simulator: lockstep, skew or random")
      ->check(CLI::IsMember({"lockstep", "skew", "random"}))
      ->capture_default_str();
  o_seed = sub.add_option("--seed", seed, "Simulator: seed of the random schedule");
  o_skew_warps =
      sub.add_option("--skew-warps", skew_warps, "Warps to delay: odd, even, all, 0xAA or 1,3")
          ->capture_default_str();
  o_skew_steps =
      sub.add_option("--skew-steps", skew_steps, "Simulator: steps the skewed warps fall behind")
          ->check(CLI::Range(0, 1 << 20))
          ->capture_default_str();
  sub.add_option("--skew-ns", skew_ns, "GPU: nanoseconds the skewed warps sleep")
      ->check(CLI::Range(0, 1'000'000));
  sub.add_option("--capacity", capacity, "Trace capacity in events (40 bytes each)")
      ->capture_default_str();
  sub.add_option("--inputs", inputs, "int (small integers) or uniform in [-1, 1]")
      ->check(CLI::IsMember({"int", "uniform"}))
      ->capture_default_str();
  sub.add_option("--input-seed", input_seed, "Seed of the inputs")->capture_default_str();
}

std::optional<std::string> LessonOptions::to_request(const char* cmd, RunRequest& req) const {
  const Variant* v = find_variant(variant);
  if (!v)
    return "unknown variant '" + variant + "'; the catalogue has: " + variant_ids() +
           " (tilescope-cli list shows them)";
  req = RunRequest{};
  req.variant = v->id;
  req.params = v->defaults;
  struct P {
    CLI::Option* opt;
    int value;
    int* field;
    uint32_t bit;
  } ps[] = {{o_m, m, &req.params.m, kUsesM},
            {o_k, k, &req.params.k, kUsesK},
            {o_n, n, &req.params.n, kUsesN},
            {o_tile, tile, &req.params.tile, kUsesTile},
            {o_length, length, &req.params.length, kUsesLength},
            {o_radius, radius, &req.params.radius, kUsesRadius},
            {o_block, block, &req.params.block, kUsesBlock}};
  for (const P& p : ps) {
    if (!p.opt || !p.opt->count()) continue;
    if (!(v->uses & p.bit)) {
      std::fprintf(stderr, "tilescope-cli %s: note: %s does not use %s; ignored\n", cmd, v->id,
                   p.opt->get_name().c_str());
      continue;
    }
    *p.field = p.value;
  }

  uint32_t mask = all_barriers(*v);
  if (o_keep && o_keep->count()) {
    if (auto e = barrier_bits(*v, keep, mask)) return e;
  } else if (o_drop && o_drop->count()) {
    uint32_t dropped = 0;
    if (auto e = barrier_bits(*v, drop, dropped)) return e;
    mask &= ~dropped;
  }
  if (auto e = validate_barrier_mask(*v, mask)) return e;
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
  if ((o_seed && o_seed->count() && req.schedule.kind != ScheduleKind::Random) ||
      (((o_skew_warps && o_skew_warps->count()) || (o_skew_steps && o_skew_steps->count())) &&
       req.schedule.kind != ScheduleKind::WarpSkew && skew_ns == 0))
    std::fprintf(stderr,
                 "tilescope-cli %s: note: --seed goes with --schedule random, --skew-warps and "
                 "--skew-steps with --schedule skew (or --skew-ns on the GPU)\n",
                 cmd);
  if (capacity == 0) return std::string("--capacity 0: a trace needs room for 1 event or more");
  req.trace_capacity = capacity;
  req.input_seed = input_seed;
  req.inputs = inputs == "uniform" ? InputKind::Uniform : InputKind::SmallIntegers;

  // Checked against the backend that will run them, so that a bad value is a
  // usage error and not a failed run.
  const bool gpu = req.backend == BackendChoice::Cuda ||
                   (req.backend == BackendChoice::Auto && cuda_status().usable);
  const DeviceLimits lim =
      gpu && cuda_status().usable ? cuda_status().limits() : simulator_model().limits();
  if (auto e = validate(*v, req.params, lim)) return e;
  return std::nullopt;
}

}  // namespace ts::cli

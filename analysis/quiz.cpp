#include "analysis/quiz.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "analysis/verdict.hpp"
#include "analysis/warp_access.hpp"

namespace ts {

const char* to_string(QuestionKind k) {
  switch (k) {
    case QuestionKind::LoadCells:
      return "load cells";
    case QuestionKind::SharedReads:
      return "shared reads";
    case QuestionKind::LastWarp:
      return "last warp";
    case QuestionKind::WrongWithout:
      return "wrong without barrier";
    case QuestionKind::BankWays:
      return "bank conflict ways";
    case QuestionKind::Sectors:
      return "sectors";
  }
  return "?";
}

namespace {

// splitmix64: the same numbers on every platform (std distributions are not).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
};

// `count` distinct indices below n, in the order drawn.
std::vector<size_t> draw(Rng& rng, size_t n, int count) {
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i)
    all[i] = i;
  std::vector<size_t> out;
  while (!all.empty() && int(out.size()) < count) {
    const size_t k = rng.below(all.size());
    out.push_back(all[k]);
    all.erase(all.begin() + ptrdiff_t(k));
  }
  return out;
}

std::string block_name(const Trace& t, uint32_t b) {
  const Dim3& g = t.config.geometry.grid;
  char s[48];
  if (g.y > 1)
    std::snprintf(s, sizeof s, "block (%u, %u)", b % std::max(1u, g.x), b / std::max(1u, g.x));
  else
    std::snprintf(s, sizeof s, "block %u", b);
  return s;
}

std::string thread_name(const Trace& t, uint32_t th) {
  const Dim3& d = t.config.geometry.block;
  char s[48];
  if (d.y > 1)
    std::snprintf(s, sizeof s, "thread (%u, %u)", th % std::max(1u, d.x), th / std::max(1u, d.x));
  else
    std::snprintf(s, sizeof s, "thread %u", th);
  return s;
}

// Each event's phase: the block-wide barriers its thread has left before it.
std::vector<uint16_t> phases_of(const Trace& t, int* max_phase) {
  std::map<uint64_t, uint16_t> left;  // (block, thread) -> barriers left
  std::vector<uint16_t> phase(t.events.size());
  *max_phase = 0;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    uint16_t& p = left[(uint64_t(e.block) << 16) | e.thread];
    if (e.kind == EventKind::BarrierLeave && !(e.flags & kFlagWarpScope)) ++p;
    phase[i] = p;
    *max_phase = std::max<int>(*max_phase, p);
  }
  return phase;
}

struct CellSet {
  std::set<uint32_t> cells;
  std::vector<uint32_t> events;
};

// Cell candidates of a few to a grid-full of cells: enough to think about, few
// enough to click. Where none fits, any will do.
template <class Key>
std::vector<const std::pair<const Key, CellSet>*> clickable(const std::map<Key, CellSet>& m) {
  std::vector<const std::pair<const Key, CellSet>*> good, any;
  for (const auto& kv : m) {
    any.push_back(&kv);
    if (kv.second.cells.size() >= 2 && kv.second.cells.size() <= 64) good.push_back(&kv);
  }
  return good.empty() ? any : good;
}

Question cell_question(QuestionKind kind, const CellSet& c, ArraySlot array, uint32_t block) {
  Question q;
  q.kind = kind;
  q.array = array;
  q.block = block;
  q.truth_cells.assign(c.cells.begin(), c.cells.end());
  q.events = c.events;
  q.hint = "Click the cells (or arrows + Space), then Enter";
  return q;
}

void load_cells(const Trace& t, const std::vector<uint16_t>& phase, int max_phase, Rng& rng,
                int count, std::vector<Question>& out) {
  using Key = std::tuple<ArraySlot, uint32_t, uint16_t>;  // array, block, phase
  std::map<Key, CellSet> sets;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const ArrayInfo* a = t.array(e.array);
    if (e.kind != EventKind::GlobalLoad || !a || a->space != Space::Global || a->output() ||
        (e.flags & kFlagOutOfRange) || e.element >= a->count())
      continue;
    CellSet& c = sets[{e.array, e.block, phase[i]}];
    c.cells.insert(e.element);
    c.events.push_back(uint32_t(i));
  }
  const auto cand = clickable(sets);
  for (size_t k : draw(rng, cand.size(), count)) {
    const auto& [key, c] = *cand[k];
    const auto [array, block, ph] = key;
    Question q = cell_question(QuestionKind::LoadCells, c, array, block);
    q.phase = ph;
    q.text = "Which cells of " + array_name(t.config.arrays, array) + " will " +
             block_name(t, block) + " load" +
             (max_phase > 0 ? " in phase " + std::to_string(ph) : std::string()) + "?";
    out.push_back(std::move(q));
  }
}

void shared_reads(const Trace& t, const std::vector<uint16_t>& phase, int max_phase, Rng& rng,
                  int count, std::vector<Question>& out) {
  using Key = std::tuple<ArraySlot, uint32_t, uint16_t, uint16_t>;  // array, block, thread, phase
  std::map<Key, CellSet> sets;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const ArrayInfo* a = t.array(e.array);
    if (e.kind != EventKind::SharedLoad || !a || !a->shared() || (e.flags & kFlagOutOfRange) ||
        e.element >= a->count())
      continue;
    CellSet& c = sets[{e.array, e.block, e.thread, phase[i]}];
    c.cells.insert(e.element);
    c.events.push_back(uint32_t(i));
  }
  const auto cand = clickable(sets);
  for (size_t k : draw(rng, cand.size(), count)) {
    const auto& [key, c] = *cand[k];
    const auto [array, block, thread, ph] = key;
    Question q = cell_question(QuestionKind::SharedReads, c, array, block);
    q.thread = thread;
    q.phase = ph;
    q.text = "Which cells of " + array_name(t.config.arrays, array) + " does " +
             thread_name(t, thread) + " of " + block_name(t, block) + " read" +
             (max_phase > 0 ? " in phase " + std::to_string(ph) : std::string()) + "?";
    out.push_back(std::move(q));
  }
}

void last_warp(const Trace& t, const std::vector<uint16_t>& phase, Rng& rng, int count,
               std::vector<Question>& out) {
  const uint64_t threads = t.config.geometry.block.count();
  const int warps = int((threads + kWarpLanes - 1) / kWarpLanes);
  if (warps < 2 || warps > 9) return;  // one warp has no order; keys 1-9 pick the choice
  // The arrival's time: the trace order on the simulator (its recorded order);
  // on the GPU the SM clock (a block stays on one SM, so its clocks compare).
  const bool sim = t.config.backend == BackendKind::Simulator;
  struct Arrivals {
    std::vector<uint64_t> latest;  // per warp; 0 = none arrived
    std::vector<uint32_t> events;
  };
  using Key = std::tuple<uint32_t, uint16_t, uint8_t>;  // block, phase, barrier
  std::map<Key, Arrivals> arrivals;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    if (e.kind != EventKind::BarrierArrive || (e.flags & kFlagWarpScope)) continue;
    Arrivals& a = arrivals[{e.block, phase[i], e.barrier}];
    a.latest.resize(size_t(warps), 0);
    const uint64_t time = (sim ? uint64_t(i) : e.clock) + 1;
    uint64_t& w = a.latest[std::min<size_t>(warp_of(e), size_t(warps - 1))];
    w = std::max(w, time);
    a.events.push_back(uint32_t(i));
  }
  std::vector<std::pair<Key, int>> cand;  // and the last warp
  for (const auto& [key, a] : arrivals) {
    if (std::count(a.latest.begin(), a.latest.end(), 0u) > 0) continue;  // a warp never came
    const uint64_t top = *std::max_element(a.latest.begin(), a.latest.end());
    if (std::count(a.latest.begin(), a.latest.end(), top) != 1) continue;  // a tie: no answer
    cand.emplace_back(key,
                      int(std::max_element(a.latest.begin(), a.latest.end()) - a.latest.begin()));
  }
  for (size_t k : draw(rng, cand.size(), count)) {
    const auto [key, last] = cand[k];
    const auto [block, ph, barrier] = key;
    Question q;
    q.kind = QuestionKind::LastWarp;
    q.block = block;
    q.phase = ph;
    q.barrier = barrier;
    q.events = arrivals[key].events;
    for (int w = 0; w < warps; ++w)
      q.choices.push_back("warp " + std::to_string(w));
    q.truth_choice = last;
    q.truth_number = last;
    q.text = "Which warp of " + block_name(t, block) + " reaches barrier " +
             std::to_string(barrier) + " last in phase " + std::to_string(ph) + "?";
    q.hint =
        std::string("The order is this recorded run's (") +
        (sim ? "the simulator's " + std::string(to_string(t.config.schedule.kind)) + " schedule"
             : "GPU clocks") +
        "); another run may differ. Keys 1-" + std::to_string(warps) + ", then Enter";
    out.push_back(std::move(q));
  }
}

void wrong_without(const Trace& t, Rng& rng, int count, std::vector<Question>& out) {
  const BufferData* o = t.output();
  if (!o || !find_variant(t.config.variant)) return;
  std::map<int, int> line_of;  // barrier id -> its line
  for (const Event& e : t.events)
    if (e.kind == EventKind::BarrierArrive && e.barrier > 0 && e.barrier <= 32)
      line_of.emplace(e.barrier, e.line);
  std::vector<std::pair<int, int>> cand(line_of.begin(), line_of.end());
  for (size_t k : draw(rng, cand.size(), count)) {
    const auto [barrier, line] = cand[k];
    Question q;
    q.kind = QuestionKind::WrongWithout;
    q.array = o->slot;
    q.barrier = barrier;
    q.rerun = wrong_without_request(t, barrier);
    q.settled = false;
    q.text = "Which cells of " + array_name(t.config.arrays, o->slot) +
             " will be wrong without barrier " + std::to_string(barrier) + " (line " +
             std::to_string(line) + ")?";
    q.hint =
        "Click the cells (none is an answer too), then Enter. Truth: a run without it, "
        "odd warps skewed";
    out.push_back(std::move(q));
  }
}

// One warp access of a site (line, kind, array) chosen by the seed; sites
// with `interesting` accesses first.
template <class Pick, class Interesting>
std::vector<const WarpAccess*> pick_accesses(const WarpAccesses& w, Rng& rng, int count,
                                             Pick&& pick, Interesting&& interesting) {
  std::map<std::tuple<uint16_t, EventKind, ArraySlot>, std::vector<const WarpAccess*>> sites;
  for (const WarpAccess& a : w.accesses)
    if (pick(a)) sites[{a.line, a.kind, a.array}].push_back(&a);
  std::vector<const std::vector<const WarpAccess*>*> good, any;
  for (const auto& [key, list] : sites) {
    any.push_back(&list);
    if (std::any_of(list.begin(), list.end(), [&](const WarpAccess* a) { return interesting(*a); }))
      good.push_back(&list);
  }
  const auto& from = good.empty() ? any : good;
  std::vector<const WarpAccess*> out;
  for (size_t k : draw(rng, from.size(), count)) {
    std::vector<const WarpAccess*> full;  // prefer the whole warp, and the interesting ones
    for (const WarpAccess* a : *from[k])
      if (interesting(*a) || good.empty()) full.push_back(a);
    std::vector<const WarpAccess*> whole;
    for (const WarpAccess* a : full)
      if (a->lane_count == kWarpLanes) whole.push_back(a);
    const auto& list = whole.empty() ? full : whole;
    out.push_back(list[rng.below(list.size())]);
  }
  return out;
}

Question number_question(const Trace& t, const WarpAccesses& w, const WarpAccess& a,
                         QuestionKind kind, int truth) {
  Question q;
  q.kind = kind;
  q.block = a.block;
  q.array = a.array;
  for (uint32_t i : w.lanes_of(a))
    q.events.push_back(i);
  const std::vector<int> nums = number_choices(truth);
  for (size_t i = 0; i < nums.size(); ++i) {
    q.choices.push_back(std::to_string(nums[i]) + (kind == QuestionKind::BankWays ? "-way"
                                                   : nums[i] == 1                 ? " sector"
                                                                                  : " sectors"));
    if (nums[i] == truth) q.truth_choice = int(i);
  }
  q.truth_number = truth;
  const std::string what = access_text(t, a.line, a.array);
  const std::string who = "warp " + std::to_string(a.warp) + " of " + block_name(t, a.block);
  const std::string verb = is_store(a.kind) ? "write to " : "read of ";
  if (kind == QuestionKind::BankWays)
    q.text = "How many ways does the " + verb + what + " by " + who + " (line " +
             std::to_string(a.line) + ") conflict?";
  else
    q.text = "How many 32-byte sectors does " + who + " touch loading " + what + " (line " +
             std::to_string(a.line) + ")?";
  q.hint = "Keys 1-" + std::to_string(nums.size()) + " pick a choice, then Enter";
  return q;
}

}  // namespace

std::vector<int> number_choices(int truth) {
  std::vector<int> v = {1, 2, 4, 8, 16, 32};
  if (std::find(v.begin(), v.end(), truth) == v.end()) v.push_back(truth);
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<Question> make_questions(const Trace& t, uint64_t seed, const QuizOptions& opt) {
  std::vector<Question> out;
  if (t.events.empty()) return out;
  Rng rng{seed};
  int max_phase = 0;
  const std::vector<uint16_t> phase = phases_of(t, &max_phase);
  const int n = std::max(1, opt.per_kind);
  load_cells(t, phase, max_phase, rng, 2 * n, out);
  shared_reads(t, phase, max_phase, rng, n, out);
  last_warp(t, phase, rng, n, out);
  const WarpAccesses w = warp_accesses(t);
  for (const WarpAccess* a : pick_accesses(
           w, rng, n,
           [](const WarpAccess& a) {
             return a.kind == EventKind::SharedLoad || a.kind == EventKind::SharedStore;
           },
           [](const WarpAccess& a) { return a.bank.degree > 1; }))
    out.push_back(number_question(t, w, *a, QuestionKind::BankWays, a->bank.degree));
  for (const WarpAccess* a : pick_accesses(
           w, rng, n,
           [](const WarpAccess& a) { return a.kind == EventKind::GlobalLoad && !a.constant; },
           [](const WarpAccess& a) { return a.sector.sectors > a.sector.ideal_sectors; }))
    out.push_back(number_question(t, w, *a, QuestionKind::Sectors, a->sector.sectors));
  // Questions of a kind in the order of the run, so that the replay moves
  // forward; the one that needs another run comes last.
  auto first = [](const Question& q) {
    return q.events.empty() ? ~0u : *std::min_element(q.events.begin(), q.events.end());
  };
  std::stable_sort(out.begin(), out.end(), [&](const Question& a, const Question& b) {
    return a.kind != b.kind ? a.kind < b.kind : first(a) < first(b);
  });
  if (opt.wrong_without) wrong_without(t, rng, n, out);
  return out;
}

Grade grade(const Question& q, const Answer& a) {
  Grade g;
  g.truth_choice = q.truth_choice;
  if (!q.settled) return g;
  g.graded = true;
  if (!q.cells()) {
    g.right = a.choice == q.truth_choice;
    return g;
  }
  std::vector<uint32_t> chosen = a.cells;
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  const auto& truth = q.truth_cells;
  std::set_intersection(chosen.begin(), chosen.end(), truth.begin(), truth.end(),
                        std::back_inserter(g.hit));
  std::set_difference(truth.begin(), truth.end(), chosen.begin(), chosen.end(),
                      std::back_inserter(g.missed));
  std::set_difference(chosen.begin(), chosen.end(), truth.begin(), truth.end(),
                      std::back_inserter(g.extra));
  g.right = g.missed.empty() && g.extra.empty();
  return g;
}

RunRequest wrong_without_request(const Trace& t, int barrier) {
  RunRequest r;
  r.variant = t.config.variant;
  r.params = t.config.params;
  r.barrier_mask = t.config.barrier_mask & ~(1u << unsigned(std::clamp(barrier - 1, 0, 31)));
  r.traced = false;  // the outputs are enough
  r.backend = BackendChoice::Sim;
  r.schedule.kind = ScheduleKind::WarpSkew;
  r.input_seed = t.config.input_seed;
  return r;
}

bool settle_wrong_without(Question& q, const Trace& run_without) {
  const std::optional<Verdict> v = verdict_of(run_without);
  if (!v || !v->checked) return false;
  q.truth_cells = v->wrong_cells;
  std::sort(q.truth_cells.begin(), q.truth_cells.end());
  q.settled = true;
  return true;
}

}  // namespace ts

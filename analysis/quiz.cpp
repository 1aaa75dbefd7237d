#include "analysis/quiz.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "analysis/verdict.hpp"
#include "analysis/warp_access.hpp"
#include "model/splitmix64.hpp"

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

// The same questions from a seed on every platform (model/splitmix64.hpp).
struct Rng {
  uint64_t state;
  uint64_t next() { return splitmix64(state); }
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
std::vector<uint16_t> phases_of(const Trace& t) {
  std::map<uint64_t, uint16_t> left;  // (block, thread) -> barriers left
  std::vector<uint16_t> phase(t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    uint16_t& p = left[(uint64_t(e.block) << 16) | e.thread];
    if (e.kind == EventKind::BarrierLeave && !(e.flags & kFlagWarpScope)) ++p;
    phase[i] = p;
  }
  return phase;
}

// The block-wide barriers each thread reached, in order: (block << 16 | thread) -> ids.
using BarrierOrder = std::map<uint64_t, std::vector<uint8_t>>;
BarrierOrder barrier_order(const Trace& t) {
  BarrierOrder a;
  for (const Event& e : t.events)
    if (e.kind == EventKind::BarrierArrive && !(e.flags & kFlagWarpScope))
      a[(uint64_t(e.block) << 16) | e.thread].push_back(e.barrier);
  return a;
}

std::string ordinal(int n) {
  const int ten = n % 100, one = n % 10;
  const char* suffix = ten >= 11 && ten <= 13 ? "th"
                       : one == 1             ? "st"
                       : one == 2             ? "nd"
                       : one == 3             ? "rd"
                                              : "th";
  return std::to_string(n) + suffix;
}

// A thread's phase in the terms a class reasons in: the barriers around it
// in the source, and the loop's pass where a barrier repeats ("in the loop's
// 2nd pass, before barrier 1" is the second tile's load of a tiled
// multiply). Empty where the kernel has no block-wide barrier.
std::string when(const BarrierOrder& all, uint32_t block, uint32_t thread, int phase) {
  const auto it = all.find((uint64_t(block) << 16) | thread);
  if (it == all.end() || it->second.empty()) return {};
  const std::vector<uint8_t>& a = it->second;
  auto times = [&](uint8_t id, size_t upto) {  // how often id is among a[0..upto)
    return int(std::count(a.begin(), a.begin() + ptrdiff_t(std::min(upto, a.size())), id));
  };
  const std::string b = "barrier ";
  if (size_t(phase) >= a.size()) {  // past the last barrier
    const uint8_t last = a.back();
    return times(last, a.size()) > 1 ? "after the loop's last " + b + std::to_string(last)
                                     : "after " + b + std::to_string(last);
  }
  const uint8_t end = a[size_t(phase)];
  const int pass = times(end, size_t(phase) + 1);
  const bool loop = times(end, a.size()) > 1;
  // Where the pass (or the kernel) starts here, "before"; else "between".
  const bool starts =
      phase == 0 || (loop && times(a[size_t(phase) - 1], size_t(phase)) == pass - 1);
  const std::string span = starts ? "before " + b + std::to_string(end)
                                  : "between barriers " + std::to_string(a[size_t(phase) - 1]) +
                                        " and " + std::to_string(end);
  return loop ? "in the loop's " + ordinal(pass) + " pass, " + span : span;
}

struct CellSet {
  std::set<uint32_t> cells;
  std::vector<uint32_t> events;
};

// `count` distinct indices below n whose facts differ, in the order drawn: a
// fact already drawn is passed over (the same seed still draws the same).
template <class Fact>
std::vector<size_t> draw_distinct(Rng& rng, size_t n, int count, Fact&& fact) {
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i)
    all[i] = i;
  std::set<std::string> seen;
  std::vector<size_t> out;
  while (!all.empty() && int(out.size()) < count) {
    const size_t k = rng.below(all.size());
    const size_t i = all[k];
    all.erase(all.begin() + ptrdiff_t(k));
    if (seen.insert(fact(i)).second) out.push_back(i);
  }
  return out;
}

// What a cell question asks, whoever is asked about: two blocks (warps,
// threads) loading their tiles of one array in one phase ask one thing, even
// where an edge tile is smaller.
std::string cell_fact(QuestionKind kind, ArraySlot array, int phase, const char* unit) {
  return std::string(to_string(kind)) + '|' + std::to_string(array) + '|' + std::to_string(phase) +
         '|' + unit;
}

// Enough to think about, few enough picks to answer live.
bool good_cells(const Trace& t, ArraySlot array, const CellSet& c) {
  const ArrayInfo* a = t.array(array);
  if (!a || c.cells.size() < 2) return false;
  return picks_for(std::vector<uint32_t>(c.cells.begin(), c.cells.end()), *a) <= kMaxPicks;
}

Question cell_question(QuestionKind kind, const CellSet& c, ArraySlot array, uint32_t block) {
  Question q;
  q.kind = kind;
  q.array = array;
  q.block = block;
  q.truth_cells.assign(c.cells.begin(), c.cells.end());
  q.events = c.events;
  q.hint =
      "Click cells or drag a rectangle (Shift adds, Ctrl removes; arrows + Space, "
      "Shift+arrows), then Enter";
  return q;
}

void load_cells(const Trace& t, const std::vector<uint16_t>& phase, const BarrierOrder& order,
                Rng& rng, int count, std::vector<Question>& out) {
  // Who loads: a block (-1, -1), a warp of it (w, -1) or a thread (-1, t).
  using Who = std::tuple<ArraySlot, uint32_t, uint16_t>;  // array, block, phase
  using Unit = std::pair<int, int>;                       // warp, thread
  std::map<Who, std::map<Unit, CellSet>> sets;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const ArrayInfo* a = t.array(e.array);
    if (e.kind != EventKind::GlobalLoad || !a || a->space != Space::Global || a->output() ||
        (e.flags & kFlagOutOfRange) || e.element >= a->count())
      continue;
    auto& units = sets[{e.array, e.block, phase[i]}];
    for (const Unit& u : {Unit{-1, -1}, Unit{int(warp_of(e)), -1}, Unit{-1, int(e.thread)}}) {
      CellSet& c = units[u];
      c.cells.insert(e.element);
      c.events.push_back(uint32_t(i));
    }
  }
  // The largest unit whose cells a class can pick: the block, else its warps,
  // else its threads.
  struct Cand {
    const Who* who;
    Unit unit;
    const CellSet* cells;
  };
  auto unit_name = [](Unit u) {
    return u.first >= 0 ? "warp" : u.second >= 0 ? "thread" : "block";
  };
  std::vector<Cand> cand;
  for (const auto& [who, units] : sets) {
    for (int level = 0; level < 3; ++level) {
      const size_t before = cand.size();
      for (const auto& [u, c] : units) {
        const int l = u.first < 0 && u.second < 0 ? 0 : u.first >= 0 ? 1 : 2;
        if (l == level && good_cells(t, std::get<0>(who), c)) cand.push_back({&who, u, &c});
      }
      if (cand.size() > before) break;
    }
  }
  const auto drawn = draw_distinct(rng, cand.size(), count, [&](size_t k) {
    const auto [array, block, ph] = *cand[k].who;
    return cell_fact(QuestionKind::LoadCells, array, ph, unit_name(cand[k].unit));
  });
  for (size_t k : drawn) {
    const auto [array, block, ph] = *cand[k].who;
    Question q = cell_question(QuestionKind::LoadCells, *cand[k].cells, array, block);
    q.phase = ph;
    q.warp = cand[k].unit.first;
    q.thread = cand[k].unit.second;
    const std::string who = q.warp >= 0     ? "warp " + std::to_string(q.warp) + " of "
                            : q.thread >= 0 ? thread_name(t, uint32_t(q.thread)) + " of "
                                            : std::string();
    const uint32_t asked = t.events[cand[k].cells->events.front()].thread;
    const std::string at = when(order, block, asked, ph);
    q.text = "Which cells of " + array_name(t.config.arrays, array) + " will " + who +
             block_name(t, block) + " load" + (at.empty() ? "" : " " + at) + "?";
    q.fact = cell_fact(q.kind, array, ph, unit_name(cand[k].unit));
    out.push_back(std::move(q));
  }
}

void shared_reads(const Trace& t, const std::vector<uint16_t>& phase, const BarrierOrder& order,
                  Rng& rng, int count, std::vector<Question>& out) {
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
  std::vector<const std::pair<const Key, CellSet>*> cand;
  for (const auto& kv : sets)
    if (good_cells(t, std::get<0>(kv.first), kv.second)) cand.push_back(&kv);
  const auto drawn = draw_distinct(rng, cand.size(), count, [&](size_t k) {
    const auto& [key, c] = *cand[k];
    return cell_fact(QuestionKind::SharedReads, std::get<0>(key), std::get<3>(key), "thread");
  });
  for (size_t k : drawn) {
    const auto& [key, c] = *cand[k];
    const auto [array, block, thread, ph] = key;
    Question q = cell_question(QuestionKind::SharedReads, c, array, block);
    q.thread = thread;
    q.phase = ph;
    const std::string at = when(order, block, thread, ph);
    q.text = "Which cells of " + array_name(t.config.arrays, array) + " does " +
             thread_name(t, thread) + " of " + block_name(t, block) + " read" +
             (at.empty() ? "" : " " + at) + "?";
    q.fact = cell_fact(q.kind, array, ph, "thread");
    out.push_back(std::move(q));
  }
}

void last_warp(const Trace& t, const std::vector<uint16_t>& phase, const BarrierOrder& order,
               Rng& rng, int count, std::vector<Question>& out) {
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
  auto fact = [&](size_t k) {  // another block at the same barrier asks the same
    const auto [block, ph, barrier] = cand[k].first;
    return std::string(to_string(QuestionKind::LastWarp)) + '|' + std::to_string(barrier) + '|' +
           std::to_string(ph);
  };
  for (size_t k : draw_distinct(rng, cand.size(), count, fact)) {
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
    q.fact = fact(k);
    // The pass of a barrier in a loop (thread 0's count: every thread of the
    // block reaches the same barriers).
    const std::string at = when(order, block, 0, ph);
    const size_t comma = at.find(", ");
    q.text = "Which warp of " + block_name(t, block) + " reaches barrier " +
             std::to_string(barrier) + " last" +
             (comma == std::string::npos ? std::string() : " " + at.substr(0, comma)) + "?";
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
  if (!o || !find_lesson(t.config.lesson_id)) return;
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
    q.salt = rng.next();
    q.fact = std::string(to_string(q.kind)) + '|' + std::to_string(barrier);
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
  q.fact = std::string(to_string(kind)) + '|' + std::to_string(a.line) + '|' +
           std::to_string(int(a.kind)) + '|' + std::to_string(a.array);
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

// The output cells each block, and each warp, writes: (block, -1) and (block, warp).
std::map<std::pair<uint32_t, int>, std::set<uint32_t>> written_by(const Trace& t, ArraySlot out) {
  std::map<std::pair<uint32_t, int>, std::set<uint32_t>> w;
  const ArrayInfo* a = t.array(out);
  for (const Event& e : t.events)
    if ((e.kind == EventKind::GlobalStore || e.kind == EventKind::GlobalAtomic) && e.array == out &&
        a && e.element < a->count() && !(e.flags & kFlagOutOfRange)) {
      w[{e.block, -1}].insert(e.element);
      w[{e.block, int(warp_of(e))}].insert(e.element);
    }
  return w;
}

}  // namespace

int picks_for(const std::vector<uint32_t>& cells, const ArrayInfo& a) {
  const uint64_t cols = a.rows > 1 && a.cols > 0 ? uint64_t(a.cols) : 0;  // 0: one row
  std::set<uint64_t> left(cells.begin(), cells.end());
  int picks = 0;
  while (!left.empty()) {
    const uint64_t e = *left.begin();  // the top-left cell left: a rectangle starts there
    uint64_t w = 1;
    while ((!cols || e % cols + w < cols) && left.count(e + w))
      ++w;
    uint64_t h = 1;
    auto row_left = [&](uint64_t r) {
      for (uint64_t i = 0; i < w; ++i)
        if (!left.count(e + r * cols + i)) return false;
      return true;
    };
    while (cols && row_left(h))
      ++h;
    for (uint64_t r = 0; r < h; ++r)
      for (uint64_t i = 0; i < w; ++i)
        left.erase(e + r * cols + i);
    ++picks;
  }
  return picks;
}

std::vector<uint32_t> rectangle_cells(const ArrayInfo& a, int r0, int c0, int r1, int c1) {
  const bool one_row = a.rows <= 1;
  const int rows = one_row ? 1 : a.rows, cols = one_row ? int(a.count()) : a.cols;
  if (r0 > r1) std::swap(r0, r1);
  if (c0 > c1) std::swap(c0, c1);
  r0 = std::max(r0, 0);
  c0 = std::max(c0, 0);
  r1 = std::min(r1, rows - 1);
  c1 = std::min(c1, cols - 1);
  std::vector<uint32_t> out;
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c)
      out.push_back(uint32_t(int64_t(r) * cols + c));
  return out;
}

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
  const std::vector<uint16_t> phase = phases_of(t);
  const BarrierOrder order = barrier_order(t);
  const int n = std::max(1, opt.per_kind);
  load_cells(t, phase, order, rng, 2 * n, out);
  shared_reads(t, phase, order, rng, n, out);
  last_warp(t, phase, order, rng, n, out);
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
  r.lesson_id = t.config.lesson_id;
  r.params = t.config.params;
  r.barrier_mask = t.config.barrier_mask;
  r.barrier_mask.remove(std::clamp(barrier, 1, 32));
  r.traced = false;  // the outputs are enough
  r.backend = BackendChoice::Sim;
  r.schedule.kind = ScheduleKind::WarpSkew;
  r.input_seed = t.config.input_seed;
  return r;
}

bool settle_wrong_without(Question& q, const Trace& run_without, const Trace* asked) {
  const std::optional<Verdict> v = verdict_of(run_without);
  if (!v || !v->checked) return false;
  q.truth_cells = v->wrong_cells;
  std::sort(q.truth_cells.begin(), q.truth_cells.end());
  q.truth_cells.erase(std::unique(q.truth_cells.begin(), q.truth_cells.end()), q.truth_cells.end());
  q.settled = true;
  const ArrayInfo* a = asked ? asked->array(q.array) : nullptr;
  if (!a) return true;
  // Few picks first: the whole output, else the cells one block writes, else
  // one warp's; a unit where some go wrong, chosen by the salt.
  const auto written = written_by(*asked, q.array);
  for (const int most : {kMaxPicks / 4, kMaxPicks}) {
    if (picks_for(q.truth_cells, *a) <= most) return true;
    for (const bool per_warp : {false, true}) {
      struct Cand {
        std::pair<uint32_t, int> who;
        std::vector<uint32_t> truth;
      };
      std::vector<Cand> good, any;
      for (const auto& [who, cells] : written) {
        if ((who.second >= 0) != per_warp || cells.size() < 2) continue;
        Cand c{who, {}};
        std::set_intersection(cells.begin(), cells.end(), q.truth_cells.begin(),
                              q.truth_cells.end(), std::back_inserter(c.truth));
        if (picks_for(c.truth, *a) > most) continue;
        (c.truth.empty() ? any : good).push_back(std::move(c));
      }
      // A unit where nothing goes wrong only on the last try.
      const auto& from = !good.empty() || most < kMaxPicks ? good : any;
      if (from.empty()) continue;
      const Cand& c = from[size_t(q.salt % from.size())];
      q.block = c.who.first;
      q.warp = c.who.second;
      const auto& scope = written.at(c.who);
      q.scope_cells.assign(scope.begin(), scope.end());
      q.truth_cells = c.truth;
      const std::string name = array_name(asked->config.arrays, q.array);
      const std::string head = "Which cells of " + name;
      const std::string who =
          (q.warp >= 0 ? "warp " + std::to_string(q.warp) + " of " : std::string()) +
          block_name(*asked, q.block);
      if (q.text.rfind(head, 0) == 0)
        q.text = "Which of the cells " + who + " writes to " + name + " (shaded) will be wrong" +
                 q.text.substr(head.size() + std::string(" will be wrong").size());
      q.hint =
          "Click or drag cells in the shaded part (none is an answer too), then Enter. Truth: a "
          "run without it, odd warps skewed";
      return true;
    }
  }
  return true;
}

}  // namespace ts

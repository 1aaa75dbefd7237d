#include "app/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

namespace ts::app {

int PhaseTable::phase_at(uint64_t pos) const {
  // Phase k shows once its first event (at position start[k] + 1) is applied.
  const auto it = std::lower_bound(start.begin(), start.end(), pos);
  return std::max(0, int(it - start.begin()) - 1);
}

PhaseTable phase_table(const Replay& r) {
  PhaseTable t;
  t.size = r.size();
  t.start.push_back(0);
  for (uint64_t p = 1; p <= t.size; ++p) {
    const uint16_t ph = r.phase_of(r.event_at(p));
    while (t.start.size() <= ph)
      t.start.push_back(p - 1);
  }
  // The barriers that end the phases, in the order a thread meets them: the
  // thread of block 0 that arrives at the most barriers (all do, in a
  // well-formed kernel).
  const std::vector<Event>& ev = r.trace().events;
  std::map<uint16_t, std::vector<int>> seq;
  for (const Event& e : ev)
    if (e.kind == EventKind::BarrierArrive && e.block == 0) seq[e.thread].push_back(e.barrier);
  const std::vector<int>* longest = nullptr;
  for (const auto& [thread, ids] : seq)
    if (!longest || ids.size() > longest->size()) longest = &ids;
  t.barrier.assign(t.start.size(), 0);
  for (size_t k = 1; k < t.start.size(); ++k)
    if (longest && k - 1 < longest->size()) t.barrier[k] = (*longest)[k - 1];
  return t;
}

Alignment align_runs(const PhaseTable& a, const PhaseTable& b) {
  std::vector<std::pair<int, int>> anchors;  // (phase of A, phase of B) that begin together
  const int pa = a.phases(), pb = b.phases();
  char how[200];
  if (pa == pb) {
    for (int k = 1; k < pa; ++k)
      anchors.emplace_back(k, k);
    if (pa == 1)
      std::snprintf(how, sizeof how, "one phase each: the same fraction of each run's events");
    else
      std::snprintf(how, sizeof how,
                    "phase k of A with phase k of B (%d phases each); inside a phase, the same "
                    "fraction of its events",
                    pa);
  } else {
    // The barriers both runs keep, met in the same order: the pieces between them align.
    std::set<int> in_a(a.barrier.begin() + 1, a.barrier.end()), both;
    for (size_t k = 1; k < b.barrier.size(); ++k)
      if (b.barrier[k] && in_a.count(b.barrier[k])) both.insert(b.barrier[k]);
    std::vector<std::pair<int, int>> fa, fb;  // (phase, barrier id)
    for (int k = 1; k < pa; ++k)
      if (both.count(a.barrier[size_t(k)])) fa.emplace_back(k, a.barrier[size_t(k)]);
    for (int k = 1; k < pb; ++k)
      if (both.count(b.barrier[size_t(k)])) fb.emplace_back(k, b.barrier[size_t(k)]);
    bool same = !fa.empty() && fa.size() == fb.size();
    for (size_t i = 0; same && i < fa.size(); ++i)
      same = fa[i].second == fb[i].second;
    if (same) {
      for (size_t i = 0; i < fa.size(); ++i)
        anchors.emplace_back(fa[i].first, fb[i].first);
      std::string ids;
      for (int id : both)
        ids += (ids.empty() ? "" : ", ") + std::to_string(id);
      std::snprintf(how, sizeof how,
                    "A has %d phases, B %d: aligned where both pass barrier %s; in between, the "
                    "same fraction of the events",
                    pa, pb, ids.c_str());
    } else {
      std::snprintf(how, sizeof how,
                    "A has %d phase%s, B %d: the whole run as one phase, the same fraction of each "
                    "run's events",
                    pa, pa == 1 ? "" : "s", pb);
    }
  }
  Alignment al;
  al.how = how;
  al.a.push_back(0);
  al.b.push_back(0);
  for (const auto& [ka, kb] : anchors) {
    al.a.push_back(a.start[size_t(ka)]);
    al.b.push_back(b.start[size_t(kb)]);
  }
  al.a.push_back(a.size);
  al.b.push_back(b.size);
  return al;
}

uint64_t aligned_position(const Alignment& al, uint64_t pos_a) {
  if (al.a.size() < 2) return 0;
  if (pos_a >= al.a.back()) return al.b.back();
  const size_t j = size_t(std::upper_bound(al.a.begin(), al.a.end(), pos_a) - al.a.begin()) - 1;
  const double f = double(pos_a - al.a[j]) / double(al.a[j + 1] - al.a[j]);
  return al.b[j] + uint64_t(std::llround(f * double(al.b[j + 1] - al.b[j])));
}

DiffSummary diff_cells(const Replay& a, const Replay& b, size_t keep) {
  DiffSummary d;
  const ArrayTable& ta = a.trace().config.arrays;
  const ArrayTable& tb = b.trace().config.arrays;
  for (const ReplayArray& ra : a.arrays()) {
    const std::string name = array_name(ta, ra.id);
    const ReplayArray* rb = nullptr;
    for (const ReplayArray& x : b.arrays())
      if (array_name(tb, x.id) == name && x.shared == ra.shared) rb = &x;
    if (!rb) continue;  // only in A (the naive lesson has no tiles): nothing to compare
    char why[160] = "";
    if (rb->rows != ra.rows || rb->cols != ra.cols)
      std::snprintf(why, sizeof why, "%s: %d x %d against %d x %d", name.c_str(), ra.rows, ra.cols,
                    rb->rows, rb->cols);
    else if (rb->blocks != ra.blocks)
      std::snprintf(why, sizeof why, "%s: %u blocks against %u", name.c_str(), ra.blocks,
                    rb->blocks);
    if (why[0]) {
      d.skipped.push_back(why);
      continue;
    }
    const bool input = !ra.shared && !ra.is_output;
    for (uint32_t blk = 0; blk < ra.blocks; ++blk)
      for (uint32_t e = 0; e < ra.count(); ++e) {
        const CellState* ca = a.cell(ra.id, blk, e);
        const CellState* cb = b.cell(rb->id, blk, e);
        if (!ca || !cb) continue;
        ++d.compared;
        // What the grid prints: inputs always hold their value; shared and
        // output cells only once stored to.
        const bool wa = input || (ca->flags & kCellWritten);
        const bool wb = input || (cb->flags & kCellWritten);
        const bool same_value =
            wa == wb && (!wa || std::memcmp(&ca->value, &cb->value, sizeof(float)) == 0 ||
                         ca->value == cb->value);
        const bool loads = input && ca->reads != cb->reads;
        if (same_value && !loads) continue;
        d.value += !same_value;
        d.loads += loads;
        if (d.cells.size() < keep) d.cells.push_back({ra.id, rb->id, blk, e, !same_value, loads});
      }
  }
  return d;
}

}  // namespace ts::app

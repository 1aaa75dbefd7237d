#include "analysis/stale_reads.hpp"

#include "analysis/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/backend.hpp"

namespace ts {

namespace {

// Each thread's loads, in program order, as a compressed table: the loads of
// slot s (= block * threads + thread) are index[start[s] .. start[s + 1]).
// Atomics are not compared: the value an atomic saw depends on the order of
// the atomics on its element, which is free even in a correct run (the plain
// loads that read their result after a barrier are compared).
struct LoadsByThread {
  uint64_t threads = 0;
  std::vector<uint32_t> start;
  std::vector<uint32_t> index;
  uint32_t count(uint64_t slot) const {
    return slot + 1 < start.size() ? start[slot + 1] - start[slot] : 0;
  }
};

LoadsByThread loads_by_thread(const std::vector<Event>& ev, uint32_t max_block,
                              uint32_t max_thread) {
  LoadsByThread t;
  t.threads = uint64_t(max_thread) + 1;
  const uint64_t slots = (uint64_t(max_block) + 1) * t.threads;
  t.start.assign(slots + 1, 0);
  for (const Event& e : ev)
    if (is_load(e.kind)) ++t.start[e.block * t.threads + e.thread + 1];
  for (uint64_t s = 0; s < slots; ++s)
    t.start[s + 1] += t.start[s];
  t.index.resize(t.start[slots]);
  std::vector<uint32_t> fill(t.start.begin(), t.start.end() - 1);
  for (uint32_t i = 0; i < ev.size(); ++i)
    if (is_load(ev[i].kind)) t.index[fill[ev[i].block * t.threads + ev[i].thread]++] = i;
  return t;
}

void extents(const std::vector<Event>& ev, uint32_t& max_block, uint32_t& max_thread) {
  for (const Event& e : ev) {
    if (e.kind == EventKind::Empty) continue;
    max_block = std::max(max_block, e.block);
    max_thread = std::max<uint32_t>(max_thread, e.thread);
  }
}

// Bit-exact comparison: a stale read is one that saw another value, and the
// inputs are exact, so any difference counts (NaN compares equal to NaN).
bool same_value(float a, float b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

bool same_inputs(const Trace& a, const Trace& b) {
  for (const auto& buf : a.buffers) {
    if (buf.is_output) continue;
    const BufferData* other = b.buffer(buf.slot);
    if (!other || other->values.size() != buf.values.size()) return false;
    for (size_t i = 0; i < buf.values.size(); ++i)
      if (!same_value(buf.values[i], other->values[i])) return false;
  }
  return true;
}

}  // namespace

StaleReadReport find_stale_reads(const Trace& run, const Trace& reference, size_t cap) {
  StaleReadReport r;
  if (run.truncated()) {
    r.error = "the trace lost " + std::to_string(run.events_dropped) +
              " events (truncated): record it again with a capacity of at least " +
              std::to_string(run.events_needed()) + " events";
    return r;
  }
  if (reference.truncated()) {
    r.error = "the reference trace is truncated";
    return r;
  }
  if (run.config.lesson_id != reference.config.lesson_id ||
      !(run.config.params == reference.config.params)) {
    r.error = "the reference is another configuration (lesson or parameters differ)";
    return r;
  }
  uint32_t max_block = 0, max_thread = 0;
  extents(run.events, max_block, max_thread);
  extents(reference.events, max_block, max_thread);
  const LoadsByThread a = loads_by_thread(run.events, max_block, max_thread);
  const LoadsByThread b = loads_by_thread(reference.events, max_block, max_thread);

  std::map<std::pair<uint16_t, ArraySlot>, uint64_t> lines;
  const uint64_t slots = a.start.size() - 1;
  for (uint64_t s = 0; s < slots; ++s) {
    const uint32_t na = a.count(s), nb = b.count(s);
    const uint32_t n = std::min(na, nb);
    r.unmatched += na - n;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t ia = a.index[a.start[s] + k];
      const uint32_t ib = b.index[b.start[s] + k];
      const Event& ea = run.events[ia];
      const Event& eb = reference.events[ib];
      if (ea.kind != eb.kind || ea.array != eb.array || ea.element != eb.element) {
        ++r.unmatched;
        continue;
      }
      ++r.loads_compared;
      if (same_value(ea.value, eb.value)) continue;
      ++r.stale;
      r.stale_events.push_back(ia);
      if (is_shared(ea.kind))
        ++r.stale_shared;
      else
        ++r.stale_global;
      ++lines[{ea.line, ea.array}];
      if (r.reads.size() < cap) {
        StaleRead sr;
        sr.event = ia;
        sr.reference_event = ib;
        sr.block = ea.block;
        sr.thread = ea.thread;
        sr.warp = uint16_t(warp_of(ea));
        sr.line = ea.line;
        sr.buffer = ea.array;
        sr.element = ea.element;
        sr.got = ea.value;
        sr.expected = eb.value;
        r.reads.push_back(sr);
      }
    }
  }
  std::sort(r.stale_events.begin(), r.stale_events.end());
  std::sort(r.reads.begin(), r.reads.end(),
            [](const StaleRead& x, const StaleRead& y) { return x.event < y.event; });
  for (const auto& [key, count] : lines)
    r.by_line.push_back({key.first, key.second, count});
  std::stable_sort(
      r.by_line.begin(), r.by_line.end(),
      [](const StaleLineCount& x, const StaleLineCount& y) { return x.count > y.count; });
  r.compared = true;
  return r;
}

std::optional<Trace> reference_trace(const Trace& run, InputKind inputs, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<Trace> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  if (run.truncated())
    return fail("the run is truncated: its reference would record the " +
                std::to_string(run.events_needed()) + " events the trace capacity cut");
  RunRequest req;
  req.lesson_id = run.config.lesson_id;
  req.params = run.config.params;
  req.barrier_mask = ~0u;
  req.traced = true;
  req.backend = BackendChoice::Sim;
  req.schedule = Schedule{};  // lockstep
  req.input_seed = run.config.input_seed;
  // The synchronised program runs the same accesses; allow for the run's size.
  req.trace_capacity =
      std::max<uint64_t>(req.trace_capacity, run.events_needed() + run.events_needed() / 4);
  // The run's inputs decide which input kind it used: try the one given first.
  for (InputKind kind : {inputs, inputs == InputKind::SmallIntegers ? InputKind::Uniform
                                                                    : InputKind::SmallIntegers}) {
    req.inputs = kind;
    RunResult res = run_simulator(req);
    if (!res.ok) return fail("the synchronised reference run failed: " + res.error);
    if (res.trace.truncated())
      return fail("the synchronised reference needs " + std::to_string(res.trace.events_needed()) +
                  " events, more than the trace capacity");
    if (same_inputs(run, res.trace)) return std::move(res.trace);
  }
  return fail("the run's inputs are not ones the simulator can regenerate from its seed");
}

StaleReadReport find_stale_reads(const Trace& run, InputKind inputs, size_t cap) {
  // A truncated run is never compared: refuse before running its reference,
  // which would record the whole run (every event the trace capacity cut).
  if (run.truncated()) return find_stale_reads(run, run, cap);
  const LessonInfo* v = find_lesson(run.config.lesson_id);
  if (v && run.config.backend == BackendKind::Simulator &&
      run.config.schedule.kind == ScheduleKind::Lockstep &&
      run.config.barriers().keeps_all_of(int(v->barriers.size())))
    return find_stale_reads(run, run, cap);
  std::string err;
  auto ref = reference_trace(run, inputs, &err);
  if (!ref) {
    StaleReadReport r;
    r.error = err;
    return r;
  }
  return find_stale_reads(run, *ref, cap);
}

OutputDamage output_damage(const Trace& run) {
  OutputDamage d;
  const LessonInfo* v = find_lesson(run.config.lesson_id);
  if (!v) {
    d.error = unknown_lesson(run.config.lesson_id);
    return d;
  }
  const BufferData* got = run.output();
  if (!got) {
    d.error = "the trace holds no output";
    return d;
  }
  const std::optional<Verdict> checked = verdict_of(run);
  if (!checked || checked->cells != got->values.size()) {
    d.error = "the output's shape is not the one the lesson gives these parameters";
    return d;
  }
  const Verdict& verdict = *checked;
  d.max_abs_error = verdict.max_abs_error;
  d.checked = true;
  d.cells = got->values.size();
  d.tolerance = verdict.tolerance;
  const int cols = std::max(1, got->cols);
  for (size_t j = 0; j < verdict.wrong_cells.size(); ++j) {
    const uint32_t i = verdict.wrong_cells[j];
    if (i >= got->values.size()) continue;
    WrongCell c;
    c.index = i;
    c.row = int(i / cols);
    c.col = int(i % cols);
    c.got = got->values[i];
    c.want = verdict.wrong_expected[j];
    c.abs_error = std::isfinite(c.got) ? std::fabs(double(c.got) - double(c.want)) : INFINITY;
    d.max_abs_error = std::max(d.max_abs_error, c.abs_error);
    d.wrong.push_back(c);
  }
  std::stable_sort(d.wrong.begin(), d.wrong.end(), [](const WrongCell& x, const WrongCell& y) {
    return x.abs_error > y.abs_error;
  });
  return d;
}

}  // namespace ts

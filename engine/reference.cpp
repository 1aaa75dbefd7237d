// Deterministic inputs, the CPU reference of every lesson and the verdict.
#include "engine/reference.hpp"

#include "model/splitmix64.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace ts {
namespace {

constexpr uint64_t mix(uint64_t x) {
  return splitmix64_hash(x);
}

float input_value(InputKind kind, ElemType type, uint64_t seed, uint32_t stream, uint64_t index) {
  const uint64_t r = mix(mix(seed ^ (uint64_t(stream) << 56)) + index);
  // A byte array (a histogram's buffer) holds any byte, whatever the kind.
  if (type == ElemType::U8) return float(r & 0xFFu);
  if (kind == InputKind::SmallIntegers) return float(int(r % 9) - 4);
  // 24 random bits: uniform in [-1, 1), exactly representable.
  return float(double(r >> 40) / double(1 << 23) - 1.0);
}

}  // namespace

std::vector<BufferData> make_inputs(const LessonInfo& v, const Params& p, InputKind kind,
                                    uint64_t seed) {
  std::vector<BufferData> inputs;
  const ArrayTable t = arrays(v, p);
  for (size_t i = 0; i < t.size(); ++i) {
    const ArrayInfo& a = t[i];
    if (a.shared() || a.role != ArrayRole::Input) continue;
    BufferData b;
    b.slot = ArraySlot(i + 1);
    b.rows = a.rows;
    b.cols = a.cols;
    b.is_output = false;
    const uint64_t count = a.count();
    b.values.resize(count);
    for (uint64_t j = 0; j < count; ++j)
      b.values[j] = input_value(kind, a.type, seed, a.fill_stream, j);
    inputs.push_back(std::move(b));
  }
  return inputs;
}

BufferData reference_output(const LessonInfo& v, const Params& p,
                            const std::vector<BufferData>& inputs) {
  const ArrayTable t = arrays(v, p);
  BufferData out;
  out.is_output = true;
  LessonInputs in;
  in.by_slot.assign(t.size() + 1, nullptr);
  static const std::vector<float> kNone;
  for (size_t i = 0; i < t.size(); ++i) {
    in.by_slot[i + 1] = &kNone;
    if (t[i].output() && !t[i].shared() && out.slot == kNoArray) {
      out.slot = ArraySlot(i + 1);
      out.rows = t[i].rows;
      out.cols = t[i].cols;
    }
  }
  for (const BufferData& b : inputs)
    if (b.slot >= 1 && b.slot <= t.size()) in.by_slot[b.slot] = &b.values;
  // Of whatever size the lesson's reference gives: check_output names a mismatch.
  out.values = v.reference(p, in);
  // No reference at all (a plain CUDA file that names none): nothing to check against.
  if (out.values.empty() && out.rows * out.cols > 0) {
    out.slot = kNoArray, out.rows = 0, out.cols = 0;
    return out;
  }
  return out;
}

Verdict check_output(const LessonInfo& v, const Params& p, const BufferData& got,
                     const BufferData& want) {
  // No reference (reference_output): not checked.
  if (want.slot == kNoArray && want.values.empty() && !got.values.empty()) return {};
  Verdict verdict;
  verdict.checked = true;
  verdict.cells = want.values.size();
  if (got.values.size() != want.values.size()) {
    // Nothing to compare cell by cell: say which side is off, not "0 of 0 wrong".
    verdict.correct = false;
    verdict.cells = 0;
    verdict.problem = "not compared: the lesson's reference returned " +
                      std::to_string(want.values.size()) + " values where the output has " +
                      std::to_string(got.values.size()) + " (" + std::to_string(got.rows) + " x " +
                      std::to_string(got.cols) + ")";
    return verdict;
  }
  // A float sum of L terms is off by at most about L * FLT_EPSILON times the
  // size of its terms (fused multiply-adds on the GPU round differently from
  // the CPU's separate multiply and add); races and missing tiles are off by
  // whole terms, orders of magnitude more.
  double scale = 1.0;
  for (float w : want.values)
    scale = std::max(scale, double(std::fabs(w)));
  const int len = std::max(v.sum_length(p), 1);
  verdict.tolerance = 4.0 * (len + 1) * double(FLT_EPSILON) * scale;
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    const double diff = std::fabs(g - w);
    if (!(diff <= verdict.tolerance)) {  // NaN counts as wrong
      verdict.wrong_cells.push_back(uint32_t(i));
      verdict.wrong_expected.push_back(want.values[i]);
      if (std::isnan(diff)) {
        verdict.max_abs_error = INFINITY;
        verdict.max_rel_error = INFINITY;
        continue;
      }
    }
    verdict.max_abs_error = std::max(verdict.max_abs_error, diff);
    if (w != 0)
      verdict.max_rel_error = std::max(verdict.max_rel_error, diff / std::fabs(w));
    else if (diff > 0)
      verdict.max_rel_error = std::max(verdict.max_rel_error, diff);
  }
  verdict.correct = verdict.wrong_cells.empty();
  return verdict;
}

std::string Verdict::summary() const {
  char buf[160];
  if (!checked) return "not checked (no output, or no reference)";
  if (!problem.empty()) return problem;
  if (correct) {
    std::snprintf(buf, sizeof buf, "correct (max abs error %.3g, tolerance %.3g)", max_abs_error,
                  tolerance);
    return buf;
  }
  std::string s =
      std::to_string(wrong_cells.size()) + " of " + std::to_string(cells) + " cells wrong";
  std::snprintf(buf, sizeof buf, " (max abs error %.3g, max rel error %.3g, tolerance %.3g)",
                max_abs_error, max_rel_error, tolerance);
  s += buf;
  s += ": ";
  const size_t shown = std::min<size_t>(wrong_cells.size(), 8);
  for (size_t i = 0; i < shown; ++i)
    s += (i ? ", " : "") + std::to_string(wrong_cells[i]);
  if (shown < wrong_cells.size()) s += ", ...";
  return s;
}

}  // namespace ts

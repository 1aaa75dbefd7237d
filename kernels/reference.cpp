// Deterministic inputs, the CPU reference of every variant and the verdict.
#include "kernels/reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace ts {
namespace {

// SplitMix64: the same numbers on every platform and compiler, unlike
// std::uniform_*_distribution.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

float input_value(InputKind kind, uint64_t seed, Buffer buf, uint64_t index) {
  const uint64_t r = mix(mix(seed ^ (uint64_t(buf) << 56)) + index);
  if (kind == InputKind::SmallIntegers) return float(int(r % 9) - 4);
  // 24 random bits: uniform in [-1, 1), exactly representable.
  return float(double(r >> 40) / double(1 << 23) - 1.0);
}

// The length of the sum behind each output element, for the tolerance.
int sum_length(const Variant& v, const Params& p) {
  if (v.family == Family::Stencil) return 2 * p.radius + 1;
  return (v.uses & kUsesK) ? p.k : p.n;
}

}  // namespace

std::vector<BufferData> make_inputs(const Variant& v, const Params& p, InputKind kind,
                                    uint64_t seed) {
  std::vector<BufferData> inputs;
  for (const BufferShape& s : buffer_shapes(v, p)) {
    if (s.is_output) continue;
    BufferData b;
    b.id = s.id;
    b.rows = s.rows;
    b.cols = s.cols;
    b.is_output = false;
    const uint64_t count = uint64_t(std::max(s.rows, 0)) * uint64_t(std::max(s.cols, 0));
    b.values.resize(count);
    for (uint64_t i = 0; i < count; ++i)
      b.values[i] = input_value(kind, seed, s.id, i);
    inputs.push_back(std::move(b));
  }
  return inputs;
}

BufferData reference_output(const Variant& v, const Params& p,
                            const std::vector<BufferData>& inputs) {
  const auto find = [&](Buffer id) -> const BufferData* {
    for (const BufferData& b : inputs)
      if (b.id == id) return &b;
    return nullptr;
  };
  BufferData out;
  out.is_output = true;
  if (v.family == Family::Matmul) {
    const BufferData* a = find(Buffer::A);
    const BufferData* b = find(Buffer::B);
    out.id = Buffer::C;
    if (!a || !b || a->cols != b->rows) return out;
    const int m = a->rows, k = a->cols, n = b->cols;
    if (a->values.size() != size_t(m) * k || b->values.size() != size_t(k) * n) return out;
    out.rows = m;
    out.cols = n;
    out.values.assign(size_t(m) * n, 0.0f);
    std::vector<double> row(n);
    for (int i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int kk = 0; kk < k; ++kk) {
        const double aik = a->values[size_t(i) * k + kk];
        const float* brow = &b->values[size_t(kk) * n];
        for (int j = 0; j < n; ++j)
          row[j] += aik * double(brow[j]);
      }
      for (int j = 0; j < n; ++j)
        out.values[size_t(i) * n + j] = float(row[j]);
    }
  } else {
    const BufferData* in = find(Buffer::In);
    out.id = Buffer::Out;
    if (!in || in->values.empty()) return out;
    const int len = int(in->values.size());
    const int r = std::max(p.radius, 0);
    out.rows = 1;
    out.cols = len;
    out.values.resize(len);
    for (int i = 0; i < len; ++i) {
      double sum = 0;
      for (int j = -r; j <= r; ++j)
        sum += in->values[std::clamp(i + j, 0, len - 1)];
      out.values[i] = float(sum / double(2 * r + 1));
    }
  }
  return out;
}

Verdict check_output(const Variant& v, const Params& p, const BufferData& got,
                     const BufferData& want) {
  Verdict verdict;
  verdict.checked = true;
  verdict.cells = want.values.size();
  if (got.values.size() != want.values.size()) {
    verdict.correct = false;
    verdict.max_abs_error = INFINITY;
    verdict.max_rel_error = INFINITY;
    for (uint32_t i = 0; i < want.values.size(); ++i)
      verdict.wrong_cells.push_back(i);
    return verdict;
  }
  // A float sum of L terms is off by at most about L * FLT_EPSILON times the
  // size of its terms (fused multiply-adds on the GPU round differently from
  // the CPU's separate multiply and add); races and missing tiles are off by
  // whole terms, orders of magnitude more.
  double scale = 1.0;
  for (float w : want.values)
    scale = std::max(scale, double(std::fabs(w)));
  const int len = std::max(sum_length(v, p), 1);
  verdict.tolerance = 4.0 * (len + 1) * double(FLT_EPSILON) * scale;
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    const double diff = std::fabs(g - w);
    if (!(diff <= verdict.tolerance)) {  // NaN counts as wrong
      verdict.wrong_cells.push_back(uint32_t(i));
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
  if (!checked) return "not checked (no output)";
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

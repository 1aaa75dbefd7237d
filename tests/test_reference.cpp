// Inputs, CPU references on hand-computed cases, and the verdict.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "engine/reference.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// Array slots by name: the multiplies' (A, B, C) and the stencils' (in, out).
ArraySlot matmul_slot(const std::string& name) {
  return picks::array_slot(picks::rectangular_tiled_lesson(), name);
}
ArraySlot stencil_slot(const std::string& name) {
  return picks::array_slot(picks::halo_lesson(picks::Halo::Global), name);
}

BufferData matrix(ArraySlot slot, int rows, int cols, std::vector<float> v) {
  BufferData b;
  b.slot = slot;
  b.rows = rows;
  b.cols = cols;
  b.values = std::move(v);
  return b;
}

TEST(Inputs, DeterministicSmallIntegersAndUniform) {
  const LessonInfo& v = picks::rectangular_tiled_lesson();
  const Params p{.m = 5, .k = 7, .n = 3, .tile = 4};
  const auto a = make_inputs(v, p, InputKind::SmallIntegers, 42);
  const auto b = make_inputs(v, p, InputKind::SmallIntegers, 42);
  const auto c = make_inputs(v, p, InputKind::SmallIntegers, 43);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].slot, matmul_slot("A"));
  EXPECT_EQ(a[0].rows, 5);
  EXPECT_EQ(a[0].cols, 7);
  EXPECT_EQ(a[1].slot, matmul_slot("B"));
  EXPECT_EQ(a[1].values.size(), 21u);
  EXPECT_EQ(a[0].values, b[0].values);
  EXPECT_NE(a[0].values, c[0].values);
  EXPECT_NE(a[0].values, a[1].values);  // A and B differ
  std::set<float> seen;
  for (float x : a[0].values) {
    EXPECT_EQ(x, std::round(x));
    EXPECT_GE(x, -4.0f);
    EXPECT_LE(x, 4.0f);
    seen.insert(x);
  }
  EXPECT_GT(seen.size(), 4u);
  const auto u = make_inputs(picks::halo_lesson(picks::Halo::Global),
                             {.length = 1000, .radius = 1, .block = 32}, InputKind::Uniform, 1);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].slot, stencil_slot("in"));
  float lo = 1, hi = -1;
  for (float x : u[0].values) {
    EXPECT_GE(x, -1.0f);
    EXPECT_LE(x, 1.0f);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_LT(lo, -0.9f);
  EXPECT_GT(hi, 0.9f);
}

TEST(Reference, MatmulByHand) {
  // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50]
  const std::vector<BufferData> in = {matrix(matmul_slot("A"), 2, 2, {1, 2, 3, 4}),
                                      matrix(matmul_slot("B"), 2, 2, {5, 6, 7, 8})};
  const BufferData c = reference_output(picks::default_lesson(), {.n = 2, .tile = 2}, in);
  EXPECT_EQ(c.slot, matmul_slot("C"));
  EXPECT_TRUE(c.is_output);
  EXPECT_EQ(c.rows, 2);
  EXPECT_EQ(c.values, (std::vector<float>{19, 22, 43, 50}));
  // (2 x 3) x (3 x 1): [1 0 2; -1 3 1] x [3; 1; 2] = [7; 2]
  const std::vector<BufferData> r = {matrix(matmul_slot("A"), 2, 3, {1, 0, 2, -1, 3, 1}),
                                     matrix(matmul_slot("B"), 3, 1, {3, 1, 2})};
  const BufferData d =
      reference_output(picks::rectangular_tiled_lesson(), {.m = 2, .k = 3, .n = 1, .tile = 2}, r);
  EXPECT_EQ(d.rows, 2);
  EXPECT_EQ(d.cols, 1);
  EXPECT_EQ(d.values, (std::vector<float>{7, 2}));
}

TEST(Reference, StencilClampsAtTheEdges) {
  // Radius 1 over [4 7 2 9 1 8 3 6]: the ends repeat their element.
  const std::vector<BufferData> in = {matrix(stencil_slot("in"), 1, 8, {4, 7, 2, 9, 1, 8, 3, 6})};
  const BufferData out = reference_output(picks::halo_lesson(picks::Halo::StaticShared),
                                          {.length = 8, .radius = 1, .block = 4}, in);
  ASSERT_EQ(out.values.size(), 8u);
  EXPECT_EQ(out.slot, stencil_slot("out"));
  EXPECT_FLOAT_EQ(out.values[0], 5.0f);  // (4 + 4 + 7) / 3
  EXPECT_FLOAT_EQ(out.values[2], 6.0f);  // (7 + 2 + 9) / 3
  EXPECT_FLOAT_EQ(out.values[7], 5.0f);  // (3 + 6 + 6) / 3
  // Radius 0 is a copy.
  const BufferData copy = reference_output(picks::halo_lesson(picks::Halo::Global),
                                           {.length = 8, .radius = 0, .block = 4}, in);
  EXPECT_EQ(copy.values, in[0].values);
}

TEST(Verdict, FindsTheWrongCell) {
  const LessonInfo& v = picks::default_lesson();
  const Params p{.n = 2, .tile = 2};
  const BufferData want = matrix(matmul_slot("C"), 2, 2, {19, 22, 43, 50});
  BufferData got = want;
  Verdict ok = check_output(v, p, got, want);
  EXPECT_TRUE(ok.checked);
  EXPECT_TRUE(ok.correct);
  EXPECT_EQ(ok.max_abs_error, 0.0);
  EXPECT_NE(ok.summary().find("correct"), std::string::npos);

  got.values[2] = 42;
  const Verdict bad = check_output(v, p, got, want);
  EXPECT_FALSE(bad.correct);
  EXPECT_EQ(bad.wrong_cells, (std::vector<uint32_t>{2}));
  EXPECT_DOUBLE_EQ(bad.max_abs_error, 1.0);
  EXPECT_NEAR(bad.max_rel_error, 1.0 / 43, 1e-12);
  EXPECT_NE(bad.summary().find("1 of 4 cells wrong"), std::string::npos) << bad.summary();

  got.values[2] = NAN;
  EXPECT_FALSE(check_output(v, p, got, want).correct);
  got.values.pop_back();
  EXPECT_FALSE(check_output(v, p, got, want).correct);
}

TEST(Verdict, ToleranceGrowsWithTheSumAndAcceptsRounding) {
  const LessonInfo& v = picks::default_lesson();
  BufferData want = matrix(matmul_slot("C"), 1, 1, {10.0f});
  const double t8 = check_output(v, {.n = 8, .tile = 4}, want, want).tolerance;
  const double t64 = check_output(v, {.n = 64, .tile = 4}, want, want).tolerance;
  EXPECT_GT(t64, t8);
  // An FMA-sized difference (a few ulps) passes, a whole term does not.
  BufferData got = want;
  got.values[0] = std::nextafter(std::nextafter(10.0f, 11.0f), 11.0f);
  EXPECT_TRUE(check_output(v, {.n = 64, .tile = 4}, got, want).correct);
  got.values[0] = 10.5f;
  EXPECT_FALSE(check_output(v, {.n = 64, .tile = 4}, got, want).correct);
}

// A reference of another size than the output: said with both sizes, not
// "0 of 0 cells wrong (max abs error inf)" (issue 31, defect 11).
TEST(Verdict, AReferenceOfTheWrongSizeNamesBothSizes) {
  const LessonInfo& v = picks::rectangular_tiled_lesson();
  const Params p{.m = 2, .k = 2, .n = 2, .tile = 2};
  const BufferData got = matrix(matmul_slot("C"), 2, 2, {1, 2, 3, 4});
  const BufferData want = matrix(matmul_slot("C"), 1, 3, {1, 2, 3});
  const Verdict verdict = check_output(v, p, got, want);
  EXPECT_FALSE(verdict.correct);
  EXPECT_NE(verdict.summary().find("the lesson's reference returned 3 values where the output "
                                   "has 4 (2 x 2)"),
            std::string::npos)
      << verdict.summary();
  EXPECT_EQ(verdict.summary().find("0 of 0"), std::string::npos) << verdict.summary();
}

}  // namespace
}  // namespace ts

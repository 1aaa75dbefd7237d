// The window's budget before a run: the largest size of a lesson that fits
// the memory budget and the trace capacity, and the budget's override.
#include <gtest/gtest.h>

#include <cstdlib>

#include "analysis/memory_estimate.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

constexpr uint64_t kCapacity = 8u << 20;  // RunRequest::trace_capacity
constexpr uint64_t kHuge = 1ull << 50;

Params with(const LessonInfo& v, int n, int tile) {
  Params p = v.defaults;
  p.n = n;
  p.tile = tile;
  return p;
}

bool fits(const LessonInfo& v, const Params& p, uint64_t capacity, uint64_t budget) {
  const RunEstimate e = estimate_run(v, p, capacity);
  return !e.truncated() && e.bytes <= budget;
}

TEST(MemoryEstimate, LargestSquareSizeWithinTheTraceCapacity) {
  const LessonInfo& v = picks::default_lesson();
  const Params big = with(v, 256, 16);
  const RunEstimate e = estimate_run(v, big, kCapacity);
  EXPECT_GT(e.events_needed, kCapacity) << "n = 256 tile 16 does not fit 8 M events";
  EXPECT_EQ(e.events_recorded, kCapacity);
  EXPECT_TRUE(e.truncated());
  const auto q = largest_size_that_fits(v, big, kCapacity, kHuge);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->tile, 16) << "the tile is kept";
  EXPECT_LT(q->n, 256);
  EXPECT_GT(q->n, 64);
  // The largest: its events fit, one more row and column do not.
  EXPECT_LE(expected_counts(v, *q).total(), kCapacity);
  EXPECT_GT(expected_counts(v, with(v, q->n + 1, 16)).total(), kCapacity);
}

TEST(MemoryEstimate, LargestSquareSizeWithinTheMemoryBudget) {
  const LessonInfo& v = picks::default_lesson();
  const Params big = with(v, 256, 16);
  const uint64_t budget = 200ull << 20;
  EXPECT_GT(estimate_run(v, big, kCapacity).bytes, budget);
  const auto q = largest_size_that_fits(v, big, kCapacity, budget);
  ASSERT_TRUE(q.has_value());
  EXPECT_TRUE(fits(v, *q, kCapacity, budget));
  EXPECT_FALSE(fits(v, with(v, q->n + 1, 16), kCapacity, budget));
  EXPECT_LE(estimate_run(v, *q, kCapacity).bytes, budget);
  // A smaller budget gives a smaller size.
  const auto r = largest_size_that_fits(v, big, kCapacity, 150ull << 20);
  ASSERT_TRUE(r.has_value());
  EXPECT_LT(r->n, q->n);
}

TEST(MemoryEstimate, ASizeThatFitsIsKeptAndNothingFitsBelowTheWindowItself) {
  const LessonInfo& v = picks::default_lesson();
  const Params small = with(v, 12, 4);
  EXPECT_EQ(largest_size_that_fits(v, small, kCapacity, 1ull << 30), small);
  // The window alone needs kWindowBaseBytes: no lesson fits under it.
  EXPECT_FALSE(largest_size_that_fits(v, with(v, 256, 16), kCapacity, kWindowBaseBytes / 2));
}

TEST(MemoryEstimate, RectangularAndStencilSizesShrinkTogetherTheRestKept) {
  const LessonInfo& rect = picks::rectangular_tiled_lesson();
  Params p = rect.defaults;
  p.m = 300, p.k = 200, p.n = 250, p.tile = 8;
  ASSERT_FALSE(fits(rect, p, kCapacity, kHuge));
  const auto q = largest_size_that_fits(rect, p, kCapacity, kHuge);
  ASSERT_TRUE(q.has_value());
  EXPECT_TRUE(fits(rect, *q, kCapacity, kHuge));
  EXPECT_EQ(q->tile, 8);
  EXPECT_LT(q->m, 300);
  EXPECT_LT(q->k, 200);
  EXPECT_LT(q->n, 250);
  EXPECT_GT(q->m, q->n) << "the shape is kept: m > n > k";
  EXPECT_GT(q->n, q->k);
  ASSERT_EQ(size_params(rect, p).size(), 3u);

  const LessonInfo& st = picks::halo_lesson(picks::Halo::StaticShared);
  Params s = st.defaults;
  s.length = 100'000'000;
  const auto t = largest_size_that_fits(st, s, kCapacity, kHuge);
  ASSERT_TRUE(t.has_value());
  EXPECT_TRUE(fits(st, *t, kCapacity, kHuge));
  EXPECT_LT(t->length, s.length);
  EXPECT_EQ(t->radius, s.radius);
  EXPECT_EQ(t->block, s.block);
  Params next = *t;
  ++next.length;
  EXPECT_FALSE(fits(st, next, kCapacity, kHuge));
  ASSERT_EQ(size_params(st, s).size(), 1u);
  EXPECT_STREQ(size_params(st, s)[0].name, "length");
}

TEST(MemoryEstimate, BudgetFromTheEnvironmentInBytesOrWithAUnit) {
  EXPECT_EQ(parse_bytes("300MB"), 300ull << 20);
  EXPECT_EQ(parse_bytes("300 m"), 300ull << 20);
  EXPECT_EQ(parse_bytes("2GB"), 2ull << 30);
  EXPECT_EQ(parse_bytes("1048576"), 1048576u);
  EXPECT_EQ(parse_bytes("12KB"), 12u << 10);
  EXPECT_FALSE(parse_bytes(""));
  EXPECT_FALSE(parse_bytes("MB"));
  EXPECT_FALSE(parse_bytes("5TB"));
  EXPECT_FALSE(parse_bytes("-5"));
  EXPECT_FALSE(parse_bytes("99999999999999999999999"));

  std::string origin;
  ::setenv("TILESCOPE_MEMORY_BUDGET", "300MB", 1);
  EXPECT_EQ(memory_budget(&origin), 300ull << 20);
  EXPECT_EQ(origin, "TILESCOPE_MEMORY_BUDGET");
  ::setenv("TILESCOPE_MEMORY_BUDGET", "lots", 1);  // malformed: the default
  EXPECT_EQ(memory_budget(&origin), default_memory_budget());
  ::unsetenv("TILESCOPE_MEMORY_BUDGET");
  EXPECT_EQ(memory_budget(&origin), default_memory_budget());
  EXPECT_NE(origin.find("quarter"), std::string::npos) << origin;
}

}  // namespace
}  // namespace ts

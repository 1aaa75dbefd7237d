// The picks the tests choose their lessons by (tests/lesson_picks.hpp): each
// finds a lesson with its property, distinct properties give distinct
// lessons, and a property no lesson has fails loudly with its description.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

TEST(LessonPicks, NoLessonWithThePropertyThrowsWithItsDescription) {
  try {
    picks::first_with("with 99 barriers",
                      [](const LessonInfo& v) { return v.barriers.size() == 99; });
    FAIL() << "a pick without a lesson returned";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "no lesson is with 99 barriers: the test needs one");
  }
  EXPECT_THROW(picks::ladder_step(0), std::runtime_error);
  EXPECT_TRUE(picks::all_with([](const LessonInfo&) { return false; }).empty());
  EXPECT_EQ(picks::all_with([](const LessonInfo&) { return true; }).size(), all_lessons().size());
}

TEST(LessonPicks, EachNamedPickHasItsProperty) {
  const LessonInfo& def = picks::default_lesson();
  EXPECT_TRUE(def.opens_the_window);
  ASSERT_NE(def.ladder, nullptr) << "the ladder picks walk the default lesson's ladder";
  for (int step = 1; step <= def.ladder_step; ++step)
    EXPECT_EQ(picks::ladder_step(step).ladder_step, step);
  EXPECT_EQ(picks::one_block_lesson().uses, uint32_t(kUsesN));
  EXPECT_TRUE(picks::reads(picks::rectangular_tiled_lesson(), kUsesM | kUsesK | kUsesTile));
  EXPECT_NE(picks::overreaching_lesson().allocation, nullptr);
  for (int count : {1, 2}) {
    const LessonInfo& v = picks::dynamic_staging_lesson(count);
    EXPECT_TRUE(picks::same_family(v, def)) << v.id;
    EXPECT_EQ(picks::shared_array_count(v), count) << v.id;
    EXPECT_TRUE(picks::has_dynamic_shared(v)) << v.id;
  }
  EXPECT_TRUE(picks::has_global_atomics(picks::global_atomics_lesson()));
  EXPECT_TRUE(picks::has_shared_atomics(picks::shared_atomics_lesson()));
  EXPECT_TRUE(picks::has_warp_shuffles(picks::warp_shuffle_lesson()));
  for (bool tile : {false, true}) {
    const LessonInfo& v = picks::constant_memory_lesson(tile);
    EXPECT_TRUE(picks::has_constant_memory(v)) << v.id;
    EXPECT_EQ(picks::has_shared_arrays(v), tile) << v.id;
  }
}

TEST(LessonPicks, DifferentPropertiesGiveDifferentLessons) {
  using picks::Halo;
  const std::set<const LessonInfo*> halos = {&picks::halo_lesson(Halo::Global),
                                             &picks::halo_lesson(Halo::StaticShared),
                                             &picks::halo_lesson(Halo::DynamicShared)};
  EXPECT_EQ(halos.size(), 3u);
  const std::set<const LessonInfo*> layouts = {
      &picks::layout_lesson(), &picks::padded_layout_lesson(), &picks::swizzled_layout_lesson(),
      &picks::layout_family_naive_lesson()};
  EXPECT_EQ(layouts.size(), 4u);
  EXPECT_NE(&picks::dynamic_staging_lesson(1), &picks::dynamic_staging_lesson(2));
  EXPECT_NE(&picks::constant_memory_lesson(false), &picks::constant_memory_lesson(true));
}

}  // namespace
}  // namespace ts

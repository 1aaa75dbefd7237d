// One larger size per lesson (engine/catalogue.hpp larger_size), which
// scripts/ncu_compare.sh LARGER=1 measures beside the defaults: every lesson
// has one that its own limits accept, with more work than the defaults, and
// `tilescope-cli list --json` gives it as arguments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_process.hpp"
#include "engine/catalogue.hpp"

namespace ts {
namespace {

uint64_t work(const LessonInfo& v, const Params& p) {
  uint64_t w = 1;
  for (const NamedParam& q : used_params(v.uses, p))
    if (std::string(q.name) != "tile" && std::string(q.name) != "radius" &&
        std::string(q.name) != "block")
      w *= uint64_t(q.value);
  return w;
}

TEST(LargerSize, EveryLessonHasAValidLargerSize) {
  for (const LessonInfo& v : all_lessons()) {
    std::string from;
    const Params p = larger_size(v, &from);
    EXPECT_FALSE(validate(v, p, DeviceLimits{})) << v.id << ": " << *validate(v, p, DeviceLimits{});
    EXPECT_GT(work(v, p), work(v, v.defaults)) << v.id << " (" << from << ")";
    if (from == "tests.larger") EXPECT_EQ(p, v.tests.larger) << v.id;
  }
}

TEST(LargerSize, ListJsonGivesItAsArguments) {
#ifndef TS_CLI_PATH
  GTEST_SKIP() << "tilescope-cli is not built";
#else
  const testing::CliRun r = testing::run_cli("list --json", false);
  ASSERT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), all_lessons().size());
  for (const auto& l : j) {
    const LessonInfo* v = find_lesson(l["id"].get<std::string>());
    ASSERT_NE(v, nullptr);
    std::string args;
    for (const NamedParam& q : used_params(v->uses, larger_size(*v)))
      args += (args.empty() ? "--" : " --") + std::string(q.name) + " " + std::to_string(q.value);
    EXPECT_EQ(l["larger_args"], args) << v->id;
    EXPECT_FALSE(l["larger_from"].get<std::string>().empty()) << v->id;
  }
#endif
}

}  // namespace
}  // namespace ts

// The test programs' main: GoogleTest, or the lesson child when a test runs a
// lesson file (engine/lesson_child.hpp starts this program again for it).
#include <gtest/gtest.h>

#include <string_view>

#include "engine/lesson_child.hpp"

int main(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == ts::kLessonChildFlag)
    return ts::lesson_child_main(argc - 1, argv + 1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

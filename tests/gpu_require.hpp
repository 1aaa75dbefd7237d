// The first line of every GPU test: without a usable CUDA device the test is
// skipped with "skipped: no CUDA device (<why>)", never passed.
#pragma once

#include <gtest/gtest.h>

#include "engine/backend.hpp"

#define REQUIRE_GPU()                                                                   \
  do {                                                                                  \
    if (!::ts::cuda_status().usable)                                                    \
      GTEST_SKIP() << "skipped: no CUDA device (" << ::ts::cuda_status().reason << ")"; \
  } while (0)

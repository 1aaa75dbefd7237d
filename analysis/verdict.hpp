// The verdict of a recorded run, from the trace alone: its inputs through the
// lesson's CPU reference, against the output it holds. The one place a
// trace's verdict is computed (the CLI's run and inspect, the window's loaded
// files, the race report's damage).
#pragma once

#include <optional>

#include "engine/reference.hpp"
#include "model/trace.hpp"

namespace ts {

// nullopt when the trace's lesson is unknown, it holds no output, or its
// arrays are not the shapes the lesson gives its parameters.
std::optional<Verdict> verdict_of(const Trace& t);

}  // namespace ts

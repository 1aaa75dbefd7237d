// A run's result as bytes, from the lesson child (engine/lesson_child.hpp) to
// the program that grades or draws it: the trace (configuration, events,
// buffers), the verdict, the faults, the error. The bytes come from a process
// running a student's code, so decoding trusts nothing: every length is
// checked against what is left, every count against its limit.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/backend.hpp"

namespace ts {

std::string encode_run_result(const RunResult& r);
// nullopt, and `why`, when the bytes are not a whole result.
std::optional<RunResult> decode_run_result(std::string_view bytes, std::string* why = nullptr);

}  // namespace ts

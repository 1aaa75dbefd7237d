// Inputs, CPU references (double accumulation) and the verdict of a run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "model/trace.hpp"

namespace ts {

enum class InputKind : uint8_t {
  SmallIntegers,  // integers in [-4, 4]: readable in the grid, and exact in float sums
  Uniform,        // uniform in [-1, 1]: what a numerics check wants
};

// The input arrays of a lesson (A and B, or In), deterministic in the seed.
// A byte array (ElemType::U8) gets bytes 0..255 of the same stream, whatever the kind.
std::vector<BufferData> make_inputs(const LessonInfo& v, const Params& p, InputKind kind,
                                    uint64_t seed);

// The output the lesson should produce (C or Out), in double, then rounded to float.
BufferData reference_output(const LessonInfo& v, const Params& p,
                            const std::vector<BufferData>& inputs);

struct Verdict {
  bool checked = false;  // false when there was no output to check
  bool correct = false;
  double max_abs_error = 0, max_rel_error = 0;
  double tolerance = 0;
  size_t cells = 0;                   // cells compared
  std::vector<uint32_t> wrong_cells;  // linear indices into the output
  std::vector<float> wrong_expected;  // the reference's value at each of wrong_cells
  // Why nothing could be compared (a reference of the wrong size); then not correct.
  std::string problem;
  std::string summary() const;  // "correct (max abs error 0)" / "17 of 289 cells wrong ..."
};

// Compares a computed output with the reference. The tolerance grows with the
// length of the sums (float accumulation, fused multiply-adds on the GPU).
Verdict check_output(const LessonInfo& v, const Params& p, const BufferData& got,
                     const BufferData& want);

}  // namespace ts

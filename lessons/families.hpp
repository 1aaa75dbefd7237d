// The lesson families, in menu order: the one place a family's title lives.
// A lesson's family is its file name's first word (lessons/<family>_<name>.hpp);
// the registry refuses a family missing here.
#pragma once

#include <string_view>

namespace ts {

struct FamilyInfo {
  const char* name;   // "matmul": the ids' prefix
  const char* title;  // "Matrix multiply": the menu heading
};

inline constexpr FamilyInfo kFamilies[] = {
    {"matmul", "Matrix multiply"},
    {"stencil", "1D stencil"},
    {"transpose", "Transpose"},
    {"reduction", "Reduction"},
    {"histogram", "Histogram"},
    {"conv2d", "2D convolution"},
    {"sgemm", "SGEMM ladder (FP32, no tensor cores)"},
    {"scan", "Scan (prefix sum)"},
};

// nullptr when the family is not in the table.
inline const FamilyInfo* find_family(std::string_view name) {
  for (const FamilyInfo& f : kFamilies)
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace ts

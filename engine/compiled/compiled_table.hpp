// The data behind engine/compiled_code.hpp, defined by the table's one .cpp:
// engine/compiled/sm_90.cpp (the copy kept in the tree) or the one the build
// generates where nvdisasm is found. Both come from scripts/sass_table.py.
#pragma once

#include <span>
#include <string_view>

#include "engine/compiled_code.hpp"

namespace ts::compiled {

// Every kernel instantiation, sorted by body.
extern const std::span<const CompiledKernel> kKernels;
// compiled_code_origin()'s text.
extern const std::string_view kOrigin;
// The nvcc that compiled the kernels, "13.0.88".
extern const std::string_view kNvccRelease;
// The hash of the sources the table was made from (scripts/sass_table.py:
// sources_hash); tests/test_compiled_code.cpp recomputes it.
extern const std::string_view kSourcesHash;

}  // namespace ts::compiled

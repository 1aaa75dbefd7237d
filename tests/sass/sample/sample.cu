// tests/sass/make_sample.sh compiles this to the committed sample.ptx and
// sample.sass (nvdisasm -gp), as scripts/sass_table.py compiles the lessons.
// clang-format off
#include "lessons/demo.hpp"
namespace ts {
namespace {
template <class Body, class Rec>
__global__ void launch_body(const float* in, float* out, int n) {
  Rec rec;
  Body::run(rec, in, out, n);
}
}  // namespace
void* sample_kernel() { return (void*)&launch_body<lessons::demo::Body, PlainRec>; }
}  // namespace ts

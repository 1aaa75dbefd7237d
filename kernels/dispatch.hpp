// From a catalogue id and a tile width to the kernel body, at compile time.
// Both backends use it: the CUDA backend wraps `Body::run` in a __global__
// function, the simulator calls it on every fiber.
//
//   visit_kernel("matmul.tiled_square", 16, [&](auto body) {
//     using Body = decltype(body);
//     Body::run(rec, args);        // or launch<Body><<<...>>>(rec, args)
//   });
#pragma once

#include <string_view>

#include "kernels/matmul_tiled.hpp"

namespace ts {

// A kernel body as a type: Body::run<Rec>(rec, args) runs one thread.
#define TS_KERNEL_BODY(Name, call)                                   \
  struct Name {                                                      \
    template <class Rec>                                             \
    static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {    \
      call;                                                          \
    }                                                                \
  }

template <int TILE>
TS_KERNEL_BODY(MatmulTiledSquare, kernels::matmul_tiled_square<TILE>(rec, args));

// Calls f(Body{}) for the variant's body at this tile width; false when the
// id is unknown or the tile width is not one of kTileWidths.
template <class F>
bool visit_tile(int tile, F&& f) {
  switch (tile) {
    case 2: f.template operator()<2>(); return true;
    case 4: f.template operator()<4>(); return true;
    case 8: f.template operator()<8>(); return true;
    case 16: f.template operator()<16>(); return true;
    case 32: f.template operator()<32>(); return true;
    default: return false;
  }
}

template <class F>
bool visit_kernel(std::string_view id, int tile, F&& f) {
  if (id == "matmul.tiled_square")
    return visit_tile(tile, [&]<int T>() { f(MatmulTiledSquare<T>{}); });
  return false;
}

}  // namespace ts

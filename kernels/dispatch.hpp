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

#include "kernels/matmul_naive.hpp"
#include "kernels/matmul_row_shared.hpp"
#include "kernels/matmul_tiled.hpp"
#include "kernels/stencil.hpp"

namespace ts {

// A kernel body as a type: Body::run<Rec>(rec, args) runs one thread.
#define TS_KERNEL_BODY(Name, call)                                \
  struct Name {                                                   \
    template <class Rec>                                          \
    static TS_DEVICE void run(Rec& rec, const KernelArgs& args) { \
      call;                                                       \
    }                                                             \
  }

TS_KERNEL_BODY(MatmulNaiveOneBlock, kernels::matmul_naive_one_block(rec, args));
TS_KERNEL_BODY(MatmulNaiveGrid, kernels::matmul_naive_grid(rec, args));
template <int TILE>
TS_KERNEL_BODY(MatmulRowShared, kernels::matmul_row_shared<TILE>(rec, args));
template <int TILE>
TS_KERNEL_BODY(MatmulRowColShared, kernels::matmul_row_col_shared<TILE>(rec, args));
template <int TILE>
TS_KERNEL_BODY(MatmulTiledExact, kernels::matmul_tiled_exact<TILE>(rec, args));
template <int TILE>
TS_KERNEL_BODY(MatmulTiledSquare, kernels::matmul_tiled_square<TILE>(rec, args));
template <int TILE>
TS_KERNEL_BODY(MatmulTiledRect, kernels::matmul_tiled_rect<TILE>(rec, args));
TS_KERNEL_BODY(StencilNaive, kernels::stencil_naive(rec, args));
TS_KERNEL_BODY(StencilShared, kernels::stencil_shared(rec, args));
TS_KERNEL_BODY(StencilSharedDynamic, kernels::stencil_shared_dynamic(rec, args));

// Calls f(Body{}) for the variant's body at this tile width; false when the
// id is unknown or the tile width is not one of kTileWidths.
template <class F>
bool visit_tile(int tile, F&& f) {
  switch (tile) {
    case 2:
      f.template operator()<2>();
      return true;
    case 4:
      f.template operator()<4>();
      return true;
    case 8:
      f.template operator()<8>();
      return true;
    case 16:
      f.template operator()<16>();
      return true;
    case 32:
      f.template operator()<32>();
      return true;
    default:
      return false;
  }
}

// Variants without a tile width (naive, stencils) ignore `tile`.
template <class F>
bool visit_kernel(std::string_view id, int tile, F&& f) {
  if (id == "matmul.naive_one_block") return f(MatmulNaiveOneBlock{}), true;
  if (id == "matmul.naive_grid") return f(MatmulNaiveGrid{}), true;
  if (id == "matmul.row_shared") return visit_tile(tile, [&]<int T>() { f(MatmulRowShared<T>{}); });
  if (id == "matmul.row_col_shared")
    return visit_tile(tile, [&]<int T>() { f(MatmulRowColShared<T>{}); });
  if (id == "matmul.tiled_exact")
    return visit_tile(tile, [&]<int T>() { f(MatmulTiledExact<T>{}); });
  if (id == "matmul.tiled_square")
    return visit_tile(tile, [&]<int T>() { f(MatmulTiledSquare<T>{}); });
  if (id == "matmul.tiled_rect") return visit_tile(tile, [&]<int T>() { f(MatmulTiledRect<T>{}); });
  if (id == "stencil.naive") return f(StencilNaive{}), true;
  if (id == "stencil.shared") return f(StencilShared{}), true;
  if (id == "stencil.shared_dynamic") return f(StencilSharedDynamic{}), true;
  return false;
}

}  // namespace ts

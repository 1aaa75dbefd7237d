// 1D stencil: out[i] is the average of in[i - R] .. in[i + R], 2R + 1 values.
// At the ends of the array an index outside it is clamped to the first or the
// last element ("edge clamping"), so every output averages 2R + 1 values.
//
// Neighbouring outputs share most of their inputs: with R = 3, in[i] is read
// by the 7 threads i - 3 .. i + 3. The shared-memory versions read each input
// once per block into shared memory, plus R "halo" cells on each side that
// belong to the neighbouring blocks, and then read the neighbours from there.
#pragma once

#include "kernels/access.hpp"
#include "kernels/kernel_args.hpp"

namespace ts::kernels {

// The static shared array is sized at compile time for the largest block and
// radius the lesson allows.
inline constexpr int kStencilMaxBlock = 1024;
inline constexpr int kStencilMaxRadius = 64;

// Edge clamping: indices before the start read the first element, indices
// past the end the last one.
TS_HD int clamp_index(int i, int length) {
  return i < 0 ? 0 : (i >= length ? length - 1 : i);
}

// Every thread reads its 2R + 1 neighbours from global memory.
template <class Rec>
TS_DEVICE void stencil_naive(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;
  GlobalArray<const float, Rec> in(rec, args.in, args.in_count, Buffer::In);  // (length)
  GlobalArray<float, Rec> out(rec, args.out, args.out_count, Buffer::Out);    // (length)

  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // the element this thread computes
  if (i < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j) {
      sum += in[clamp_index(i + j, length)];  // 2R + 1 global loads per output
    }
    out[i] = sum / float(2 * radius + 1);
  }
}

// A static shared array: the block's elements with R halo cells on each side.
template <class Rec>
TS_DEVICE void stencil_shared(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;
  GlobalArray<const float, Rec> in(rec, args.in, args.in_count, Buffer::In);  // (length)
  GlobalArray<float, Rec> out(rec, args.out, args.out_count, Buffer::Out);    // (length)

  const int block = blockDim.x, tx = threadIdx.x;
  // A launch uses the first block + 2 * radius elements:
  // [ R halo cells | the block's `block` elements | R halo cells ]
  __shared__ float cache_mem[kStencilMaxBlock + 2 * kStencilMaxRadius];
  SharedArray<float, Rec> cache(rec, cache_mem, block + 2 * radius, Buffer::StencilShared);

  const int g = blockIdx.x * block + tx;  // this thread's element of in and out
  const int s = tx + radius;              // its place in the shared array

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // Every thread loads its own element; past the end of the array (the last
  // block may be partial) it loads the clamped value, which is what its
  // neighbours need there.
  cache[s] = in[clamp_index(g, length)];
  if (tx < radius) {
    // The first R threads also load the halos: R cells before the block and
    // R after it. This is why the radius may not exceed the block size.
    cache[s - radius] = in[clamp_index(g - radius, length)];
    cache[s + block] = in[clamp_index(g + block, length)];
  }
  SYNCTHREADS(1);  // neighbours were loaded by other threads, other warps: wait for all

  if (g < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j) {
      sum += cache[s + j];  // 2R + 1 shared loads, no global ones
    }
    out[g] = sum / float(2 * radius + 1);
  }
}

// The same with `extern __shared__`: the array's size, (block + 2R) floats, is
// given at launch, so any block size and radius work as long as they fit.
template <class Rec>
TS_DEVICE void stencil_shared_dynamic(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;
  GlobalArray<const float, Rec> in(rec, args.in, args.in_count, Buffer::In);  // (length)
  GlobalArray<float, Rec> out(rec, args.out, args.out_count, Buffer::Out);    // (length)

  const int block = blockDim.x, tx = threadIdx.x;
  TS_EXTERN_SHARED(float, cache_mem);  // (block + 2 * radius) * sizeof(float) bytes at launch
  SharedArray<float, Rec> cache(rec, cache_mem, block + 2 * radius, Buffer::StencilShared);

  const int g = blockIdx.x * block + tx;
  const int s = tx + radius;

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  cache[s] = in[clamp_index(g, length)];
  if (tx < radius) {
    cache[s - radius] = in[clamp_index(g - radius, length)];
    cache[s + block] = in[clamp_index(g + block, length)];
  }
  SYNCTHREADS(1);  // neighbours were loaded by other threads, other warps: wait for all

  if (g < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j) {
      sum += cache[s + j];
    }
    out[g] = sum / float(2 * radius + 1);
  }
}

}  // namespace ts::kernels

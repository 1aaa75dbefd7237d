// The histogram family's twins (bench/family_twins.cu): shared bins per
// block (step 2) and many elements per thread a grid apart (the last step),
// with their runs.
#pragma once

#include "bench/twins/harness.cuh"

// 64 bins over [-4, 4]; values below (and NaN) go to bin 0, above to bin 63.
constexpr int kBins = 64;
__host__ __device__ inline int bin_of(float x) {
  const float t = (x + 4.0f) * (float(kBins) / 8.0f);
  return int(fminf(fmaxf(t, 0.0f), float(kBins - 1)));
}

// Histogram: each block counts into its own shared bins, then adds them to
// the global ones (one global atomic per bin and block).
__global__ void histogram_shared(const float* in, unsigned* bins, int length) {
  __shared__ unsigned local[kBins];
  const int tx = threadIdx.x, block = blockDim.x;
  const int i = blockIdx.x * block + tx;
  for (int b = tx; b < kBins; b += block)
    local[b] = 0u;
  __syncthreads();
  if (i < length) atomicAdd(&local[bin_of(in[i])], 1u);
  __syncthreads();
  for (int b = tx; b < kBins; b += block)
    atomicAdd(&bins[b], local[b]);
}

// Histogram, many elements per thread: each block counts into its own shared
// bins, at most 1024 blocks walking the input a grid apart, two float4s in
// flight per thread, plain increments (ATOMS.POPC.INC: the hardware combines
// the lanes of a warp on one counter), one global atomic per bin and block.
constexpr int kHistInFlight = 2, kHistQuadsPerThread = 2, kHistMaxBlocks = 1024;
__global__ void histogram_grid_stride(const float* __restrict__ in, unsigned* bins, int length) {
  __shared__ unsigned local[kBins];
  const int tx = threadIdx.x, block = blockDim.x;
  for (int b = tx; b < kBins; b += block)
    local[b] = 0u;
  __syncthreads();
  const int quads = length / 4, stride = gridDim.x * block;
  const int first = blockIdx.x * block + tx;
  for (int q = first; q < quads; q += kHistInFlight * stride) {
    float4 v[kHistInFlight];  // float4 q: elements 4q .. 4q + 3, one 16-byte load
#pragma unroll
    for (int u = 0; u < kHistInFlight; ++u)
      v[u] = q + u * stride < quads ? *reinterpret_cast<const float4*>(&in[4 * (q + u * stride)])
                                    : make_float4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < kHistInFlight; ++u) {
      if (q + u * stride >= quads) break;
      atomicAdd(&local[bin_of(v[u].x)], 1u);
      atomicAdd(&local[bin_of(v[u].y)], 1u);
      atomicAdd(&local[bin_of(v[u].z)], 1u);
      atomicAdd(&local[bin_of(v[u].w)], 1u);
    }
  }
  if (4 * quads + first < length) atomicAdd(&local[bin_of(in[4 * quads + first])], 1u);
  __syncthreads();
  for (int b = tx; b < kBins; b += block)
    atomicAdd(&bins[b], local[b]);
}

// ---- the runs

namespace {

// The histograms (step 2's shared bins per block, and the last step's
// grid stride) on the sweep's kind of input (integers in [-4, 4]: 9 bins
// hit), on a uniform one (every bin as likely) and on a skewed one (every
// element in bin 40).
void histogram(Harness& bench, int length) {
  const bool shared = bench.wanted("histogram_shared"),
             grid_stride = bench.wanted("histogram_grid_stride");
  if (!shared && !grid_stride) return;
  const int B = bench.o.block, blocks = (length + B - 1) / B;
  const int quads = length / 4, per_block = B * kHistQuadsPerThread;
  const int gs_blocks = std::max(1, std::min((quads + per_block - 1) / per_block, kHistMaxBlocks));
  Dev in(size_t(length) * 4), bins(kBins * 4);
  for (const char* input : {"small-integers", "uniform", "one-hot"}) {
    std::vector<float> h = small_integers(size_t(length), 6);
    if (std::string(input) == "uniform") {  // a random bin per element, at its centre:
      // the sweep's --input uniform (engine/library_anchors.cpp) for the array in slot 1
      const uint64_t base = splitmix64_hash(1 ^ 0x4C1B0000ull);
      for (size_t i = 0; i < h.size(); ++i)
        h[i] = -4.0f + (float(splitmix64_hash(base + i) % kBins) + 0.5f) * 8.0f / kBins;
    }
    if (std::string(input) == "one-hot") std::fill(h.begin(), h.end(), 1.06f);
    CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
    // The bins start at zero for the checked launch; the timed ones add on
    // top (as the sweep times the lesson: no memset inside the timing).
    CHECK(cudaMemset(bins.p, 0, kBins * 4));
    auto correct = [&] {
      std::vector<unsigned> got(kBins), want(kBins, 0u);
      CHECK(cudaMemcpy(got.data(), bins.p, kBins * 4, cudaMemcpyDeviceToHost));
      for (float x : h)
        ++want[size_t(bin_of(x))];
      return got == want;
    };
    if (shared)
      bench.run(
          "histogram_shared", input, length, "block=" + std::to_string(B),
          4.0 * (double(length) + kBins),
          [&] { histogram_shared<<<blocks, B>>>(in.f(), bins.u(), length); }, correct);
    CHECK(cudaMemset(bins.p, 0, kBins * 4));
    if (grid_stride)
      bench.run(
          "histogram_grid_stride", input, length, "block=" + std::to_string(B),
          4.0 * (double(length) + kBins),
          [&] { histogram_grid_stride<<<gs_blocks, B>>>(in.f(), bins.u(), length); }, correct);
  }
}

}  // namespace

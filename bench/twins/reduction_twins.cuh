// The reduction family's twins (bench/family_twins.cu): warp shuffles after
// a shared tree (step 7), and the whole sum in one launch (the last step,
// issue 23), with their runs.
#pragma once

#include "bench/twins/harness.cuh"

// One partial sum per block of 2 * blockDim.x elements: a first add while
// loading, a shared tree down to 64, warp 0 finishes with shuffles.
__global__ void reduce_warp_shuffle(const float* in, float* out, int length) {
  extern __shared__ float sdata[];
  const int block = blockDim.x, tid = threadIdx.x;
  const int i = blockIdx.x * (2 * block) + tid;
  float x = 0.0f;
  if (i < length) x = in[i];
  if (i + block < length) x += in[i + block];
  sdata[tid] = x;
  __syncthreads();
  for (int s = block / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
    for (int s = 16; s > 0; s >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, s);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// The whole sum in one launch: each thread adds float4s a grid apart, four
// loaded before it adds any; the block's sums go down a shared tree to 64,
// warp 0 finishes with shuffles, and thread 0 adds the block's sum into
// out[0] with one atomicAdd (out starts at zero). B == blockDim.x. The
// float4s come through the read-only cache (__ldg), as the lesson's do.
constexpr int kUnroll = 4;
template <int B>
__global__ void reduce_single_pass(const float* in, float* out, int length) {
  extern __shared__ float sdata[];
  const int tid = threadIdx.x;
  const int quads = length / 4, stride = gridDim.x * B, first = blockIdx.x * B + tid;
  float sum = 0.0f;
  for (int q = first; q < quads; q += kUnroll * stride) {  // q counts float4s
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      v[u] = q + u * stride < quads
                 ? __ldg(reinterpret_cast<const float4*>(&in[4 * (q + u * stride)]))
                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  if (4 * quads + first < length) sum += in[4 * quads + first];  // the last 0 to 3 elements
  sdata[tid] = sum;
  __syncthreads();
#pragma unroll
  for (int s = B / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, s);
    if (tid == 0) atomicAdd(out, v);
  }
}

// ---- the runs

namespace {

void reduction(Harness& bench, int length) {
  if (!bench.wanted("reduce_warp_shuffle")) return;
  const int B = bench.o.block, per = 2 * B, blocks = (length + per - 1) / per;
  const std::vector<float> h = small_integers(size_t(length), 4);
  Dev in(size_t(length) * 4), out(size_t(blocks) * 4);
  CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out.p, 0xFF, size_t(blocks) * 4));
  auto correct = [&] {
    std::vector<float> got(blocks);
    CHECK(cudaMemcpy(got.data(), out.p, size_t(blocks) * 4, cudaMemcpyDeviceToHost));
    for (int g = 0; g < blocks; ++g) {
      double sum = 0;
      for (int i = g * per; i < std::min(length, (g + 1) * per); ++i)
        sum += h[size_t(i)];
      if (double(got[g]) != sum) return false;
    }
    return true;
  };
  bench.run(
      "reduce_warp_shuffle", "plain", length, "block=" + std::to_string(B),
      4.0 * (double(length) + blocks),
      [&] { reduce_warp_shuffle<<<blocks, B, B * 4>>>(in.f(), out.f(), length); }, correct);
}

// The grid of the grid-stride steps: 8 elements per thread, at most 8192 blocks.
void reduction_last(Harness& bench, int length) {
  if (!bench.wanted("reduce_single_pass")) return;
  const int B = bench.o.block;
  const int blocks = int(std::min<int64_t>((int64_t(length) + 8 * B - 1) / (8 * B), 8192));
  const std::vector<float> h = small_integers(size_t(length), 4);
  Dev in(size_t(length) * 4), out(4);
  CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
  // out[0] starts at zero for the checked launch; the timed ones add on
  // top, as the sweep times the lesson (no memset inside the timing).
  CHECK(cudaMemset(out.p, 0, 4));
  auto correct = [&] {
    float got = 0;
    CHECK(cudaMemcpy(&got, out.p, 4, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float x : h)
      sum += x;
    return double(got) == sum;  // integers: every partial sum exact in float
  };
  auto launch = [&] {
    const size_t shared = size_t(B) * 4;
    switch (B) {
      case 64:
        reduce_single_pass<64><<<blocks, 64, shared>>>(in.f(), out.f(), length);
        break;
      case 128:
        reduce_single_pass<128><<<blocks, 128, shared>>>(in.f(), out.f(), length);
        break;
      case 256:
        reduce_single_pass<256><<<blocks, 256, shared>>>(in.f(), out.f(), length);
        break;
      case 512:
        reduce_single_pass<512><<<blocks, 512, shared>>>(in.f(), out.f(), length);
        break;
      default:
        reduce_single_pass<1024><<<blocks, 1024, shared>>>(in.f(), out.f(), length);
    }
  };
  bench.run("reduce_single_pass", "plain", length, "block=" + std::to_string(B),
            4.0 * (double(length) + 1), launch, correct);
}

}  // namespace

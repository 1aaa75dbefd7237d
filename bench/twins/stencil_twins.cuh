// The stencil family's twins (bench/family_twins.cu): the plain kernels of
// the steps the twins check stands for, written as a textbook writes them (no
// TileScope code), a shared halo (step 2) and float4s with a register window
// (the last step), with their runs.
#pragma once

#include "bench/twins/harness.cuh"

__host__ __device__ inline int clamp_index(int i, int length) {
  return i < 0 ? 0 : (i >= length ? length - 1 : i);
}

// The 1D stencil through a shared array with a halo of `radius` on each side.
constexpr int kMaxBlock = 1024, kMaxRadius = 64;
__global__ void stencil_shared(const float* in, float* out, int length, int radius) {
  __shared__ float cache[kMaxBlock + 2 * kMaxRadius];
  const int block = blockDim.x, tx = threadIdx.x;
  const int g = blockIdx.x * block + tx;
  const int s = tx + radius;
  cache[s] = in[clamp_index(g, length)];
  if (tx < radius) {
    cache[s - radius] = in[clamp_index(g - radius, length)];
    cache[s + block] = in[clamp_index(g + block, length)];
  }
  __syncthreads();
  if (g < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j)
      sum += cache[s + j];
    out[g] = sum / float(2 * radius + 1);
  }
}

// The 1D stencil with float4 loads and stores and a 12-register window: each
// thread moves two float4s (a block apart) through shared memory, whose halo
// is 4 cells a side (R <= 4), and computes 4 outputs per float4 from three
// 16-byte shared loads; the average multiplies by 1 / (2R + 1).
template <int R>
__global__ void stencil_vectorized(const float* in, float* out, int length) {
  constexpr int kQuads = 2, kHalo = 4;
  extern __shared__ float4 cache4[];  // (8 * blockDim.x + 8) floats
  float* cache = reinterpret_cast<float*>(cache4);
  const int block = blockDim.x, tx = threadIdx.x;
  const int span = 4 * kQuads * block, first = blockIdx.x * span;
#pragma unroll
  for (int v = 0; v < kQuads; ++v) {
    const int o = 4 * (tx + v * block), e = first + o;
    float4 x;
    if (e + 3 < length) {
      x = *reinterpret_cast<const float4*>(in + e);
    } else {
      x.x = in[clamp_index(e, length)];
      x.y = in[clamp_index(e + 1, length)];
      x.z = in[clamp_index(e + 2, length)];
      x.w = in[clamp_index(e + 3, length)];
    }
    *reinterpret_cast<float4*>(cache + kHalo + o) = x;
  }
  if (tx < kHalo) {
    cache[tx] = in[clamp_index(first - kHalo + tx, length)];
    cache[kHalo + span + tx] = in[clamp_index(first + span + tx, length)];
  }
  __syncthreads();
#pragma unroll
  for (int v = 0; v < kQuads; ++v) {
    const int o = 4 * (tx + v * block), e = first + o;
    float w[12];
#pragma unroll
    for (int q = 0; q < 3; ++q) {
      const float4 t = *reinterpret_cast<const float4*>(cache + o + 4 * q);
      w[4 * q] = t.x, w[4 * q + 1] = t.y, w[4 * q + 2] = t.z, w[4 * q + 3] = t.w;
    }
    constexpr float kInverse = 1.0f / float(2 * R + 1);
    float r[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      float sum = 0.0f;
#pragma unroll
      for (int j = -R; j <= R; ++j)
        sum += w[kHalo + q + j];
      r[q] = sum * kInverse;
    }
    if (e + 3 < length) {
      *reinterpret_cast<float4*>(out + e) = make_float4(r[0], r[1], r[2], r[3]);
    } else {
      for (int q = 0; q < 3 && e + q < length; ++q)
        out[e + q] = r[q];
    }
  }
}

// ---- the runs

namespace {

void stencil(Harness& bench, int length) {
  if (!bench.wanted("stencil_shared")) return;
  const int B = bench.o.block, R = bench.o.radius, blocks = (length + B - 1) / B;
  const std::vector<float> h = small_integers(size_t(length), 4);
  Dev in(size_t(length) * 4), out(size_t(length) * 4);
  CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out.p, 0xFF, size_t(length) * 4));
  auto correct = [&] {
    std::vector<float> got(static_cast<size_t>(length));
    CHECK(cudaMemcpy(got.data(), out.p, size_t(length) * 4, cudaMemcpyDeviceToHost));
    for (int g = 0; g < length; ++g) {
      double sum = 0;
      for (int j = -R; j <= R; ++j)
        sum += h[size_t(clamp_index(g + j, length))];
      if (std::fabs(got[size_t(g)] - sum / (2 * R + 1)) > 1e-5 * (1 + std::fabs(sum))) return false;
    }
    return true;
  };
  bench.run(
      "stencil_shared", "plain", length,
      "block=" + std::to_string(B) + " radius=" + std::to_string(R), 8.0 * double(length),
      [&] { stencil_shared<<<blocks, B>>>(in.f(), out.f(), length, R); }, correct);
}

template <int R>
bool stencil_vec_if(Harness& bench, int length) {
  if (bench.o.radius != R) return false;
  const int B = bench.o.block, span = 8 * B, blocks = (length + span - 1) / span;
  const std::vector<float> h = small_integers(size_t(length), 4);
  Dev in(size_t(length) * 4), out(size_t(length) * 4);
  CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out.p, 0xFF, size_t(length) * 4));
  auto correct = [&] {
    std::vector<float> got(static_cast<size_t>(length));
    CHECK(cudaMemcpy(got.data(), out.p, size_t(length) * 4, cudaMemcpyDeviceToHost));
    for (int g = 0; g < length; ++g) {
      double sum = 0;
      for (int j = -R; j <= R; ++j)
        sum += h[size_t(clamp_index(g + j, length))];
      if (std::fabs(got[size_t(g)] - sum / (2 * R + 1)) > 1e-5 * (1 + std::fabs(sum))) return false;
    }
    return true;
  };
  const size_t shared = size_t(span + 8) * 4;
  bench.run(
      "stencil_vectorized", "plain", length,
      "block=" + std::to_string(B) + " radius=" + std::to_string(R), 8.0 * double(length),
      [&] { stencil_vectorized<R><<<blocks, B, shared>>>(in.f(), out.f(), length); }, correct);
  return true;
}

// The stencil's last step (float4s, a register window) at the --radius (1 to 4).
void stencil_vec(Harness& bench, int length) {
  if (!bench.wanted("stencil_vectorized")) return;
  const bool ran = stencil_vec_if<1>(bench, length) || stencil_vec_if<2>(bench, length) ||
                   stencil_vec_if<3>(bench, length) || stencil_vec_if<4>(bench, length);
  if (!ran)
    std::fprintf(stderr, "stencil_vectorized: radius %d not compiled (1 to 4)\n", bench.o.radius);
}

}  // namespace

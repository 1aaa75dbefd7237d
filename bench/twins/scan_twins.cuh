// The scan family's twin (bench/family_twins.cu): Blelloch's work-efficient
// scan of each block's elements, with its run.
#pragma once

#include "bench/twins/harness.cuh"

// Blelloch's work-efficient exclusive scan of each block's 2 * blockDim.x
// elements, with one spare shared word after every 32 (no bank conflicts).
__host__ __device__ inline int padded(int i) {
  return i + (i >> 5);
}
__global__ void scan_blelloch(const float* in, float* out, int length) {
  extern __shared__ float temp[];
  const int block = blockDim.x, tid = threadIdx.x, n = 2 * block;
  const int base = blockIdx.x * n, a = tid, b = tid + block;
  float xa = 0.0f, xb = 0.0f;
  if (base + a < length) xa = in[base + a];
  if (base + b < length) xb = in[base + b];
  temp[padded(a)] = xa;
  temp[padded(b)] = xb;
  __syncthreads();
  int offset = 1;
  for (int d = n / 2; d > 0; d /= 2) {
    if (tid < d) {
      const int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      temp[padded(right)] += temp[padded(left)];
    }
    offset *= 2;
    __syncthreads();
  }
  if (tid == 0) temp[padded(n - 1)] = 0.0f;
  for (int d = 1; d < n; d *= 2) {
    offset /= 2;
    if (tid < d) {
      const int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      const float t = temp[padded(left)];
      temp[padded(left)] = temp[padded(right)];
      temp[padded(right)] += t;
    }
    __syncthreads();
  }
  if (base + a < length) out[base + a] = temp[padded(a)];
  if (base + b < length) out[base + b] = temp[padded(b)];
}

// ---- the runs

namespace {

void scan(Harness& bench, int length) {
  if (!bench.wanted("scan_blelloch")) return;
  const int B = bench.o.block, per = 2 * B, blocks = (length + per - 1) / per;
  const std::vector<float> h = small_integers(size_t(length), 4);
  Dev in(size_t(length) * 4), out(size_t(length) * 4);
  CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out.p, 0xFF, size_t(length) * 4));
  auto correct = [&] {
    std::vector<float> got(static_cast<size_t>(length));
    CHECK(cudaMemcpy(got.data(), out.p, size_t(length) * 4, cudaMemcpyDeviceToHost));
    double run_sum = 0;
    for (int i = 0; i < length; ++i) {
      if (i % per == 0) run_sum = 0;
      if (double(got[size_t(i)]) != run_sum) return false;
      run_sum += h[size_t(i)];
    }
    return true;
  };
  const int shared = (padded(per - 1) + 1) * 4;
  bench.run(
      "scan_blelloch", "plain", length, "block=" + std::to_string(B), 8.0 * double(length),
      [&] { scan_blelloch<<<blocks, B, shared>>>(in.f(), out.f(), length); }, correct);
}

}  // namespace

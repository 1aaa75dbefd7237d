// The transpose family's twins (bench/family_twins.cu): a padded and a
// swizzled 32 x 32 tile (steps 3 and 4), and float4s through a 32 x 32 or
// 64 x 64 tile (the last steps, issue 23), with their runs.
#pragma once

#include "bench/twins/harness.cuh"

constexpr int kTile = 32;  // the transposes' tile and block side

// Transpose through a padded 32 x 33 tile: column reads hit 32 different banks.
__global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * kTile + tx;
  int row = blockIdx.y * kTile + ty;
  if (row < rows && col < cols) tile[ty][tx] = in[row * cols + col];
  __syncthreads();
  col = blockIdx.y * kTile + tx;
  row = blockIdx.x * kTile + ty;
  if (row < cols && col < rows) out[row * rows + col] = tile[tx][ty];
}

// Transpose through a swizzled 32 x 32 tile: (r, c) is kept at column c ^ r.
__global__ void transpose_swizzled(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * kTile + tx;
  int row = blockIdx.y * kTile + ty;
  if (row < rows && col < cols) tile[ty][tx ^ ty] = in[row * cols + col];
  __syncthreads();
  col = blockIdx.y * kTile + tx;
  row = blockIdx.x * kTile + ty;
  if (row < cols && col < rows) out[row * rows + col] = tile[tx][ty ^ tx];
}

// Transpose with float4 loads and stores through a padded T x T tile (T = 32:
// transpose.vectorized; T = 64: transpose.large_tile, the last step): a block
// of T/4 x 16 threads; each thread loads four neighbours of a row of in, T/16
// times, and stores four neighbours of a row of out (four rows of one column
// of the tile), T/16 times. Rows whose length is not a multiple of 4 are not
// 16-byte aligned: there the thread moves its four elements one by one. The
// float4s come through the read-only cache (__ldg), as the lessons' do.
constexpr int kBlockRows = 16;
template <int T>
__global__ void transpose_float4(const float* in, float* out, int rows, int cols) {
  constexpr int kPasses = T / kBlockRows;
  __shared__ float tile[T][T + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * T + 4 * tx;
  if (cols % 4 == 0) {
    float4 v[kPasses] = {};
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int row = blockIdx.y * T + ty + p * kBlockRows;
      if (row < rows && col < cols)
        v[p] = __ldg(reinterpret_cast<const float4*>(&in[row * cols + col]));
    }
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int r = ty + p * kBlockRows, row = blockIdx.y * T + r;
      if (row >= rows || col >= cols) continue;
      tile[r][4 * tx] = v[p].x;
      tile[r][4 * tx + 1] = v[p].y;
      tile[r][4 * tx + 2] = v[p].z;
      tile[r][4 * tx + 3] = v[p].w;
    }
  } else {
    for (int p = 0; p < kPasses; ++p)
      for (int e = 0; e < 4; ++e) {
        const int r = ty + p * kBlockRows, row = blockIdx.y * T + r;
        if (row < rows && col + e < cols) tile[r][4 * tx + e] = in[row * cols + col + e];
      }
  }
  __syncthreads();
  col = blockIdx.y * T + 4 * tx;
#pragma unroll
  for (int p = 0; p < kPasses; ++p) {
    const int c = ty + p * kBlockRows, row = blockIdx.x * T + c;
    if (row >= cols) continue;
    if (rows % 4 == 0 && col < rows) {
      *reinterpret_cast<float4*>(&out[row * rows + col]) = make_float4(
          tile[4 * tx][c], tile[4 * tx + 1][c], tile[4 * tx + 2][c], tile[4 * tx + 3][c]);
    } else if (rows % 4 != 0) {
      for (int e = 0; e < 4; ++e)
        if (col + e < rows) out[row * rows + col + e] = tile[4 * tx + e][c];
    }
  }
}

// ---- the runs

namespace {

void transposes(Harness& bench, int size) {
  const int side = int(std::floor(std::sqrt(double(size))));
  const size_t n = size_t(side) * side;
  const std::vector<float> h = small_integers(n, 5);
  Dev in(n * 4), out(n * 4);
  CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
  const dim3 block(kTile, kTile), grid((side + kTile - 1) / kTile, (side + kTile - 1) / kTile);
  auto correct = [&] {
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), out.p, n * 4, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < size_t(side); ++r)
      for (size_t c = 0; c < size_t(side); ++c)
        if (got[c * side + r] != h[r * side + c]) return false;
    return true;
  };
  const std::string params = "m=n=" + std::to_string(side);
  for (int swizzled = 0; swizzled < 2; ++swizzled) {
    const std::string twin = swizzled ? "transpose_swizzled" : "transpose_padded";
    if (!bench.wanted(twin)) continue;
    CHECK(cudaMemset(out.p, 0xFF, n * 4));
    bench.run(
        twin, "plain", size, params, 8.0 * double(n),
        [&] {
          if (swizzled)
            transpose_swizzled<<<grid, block>>>(in.f(), out.f(), side, side);
          else
            transpose_padded<<<grid, block>>>(in.f(), out.f(), side, side);
        },
        correct);
  }
}

template <int T>
void transpose_float4_at(Harness& bench, const std::string& twin, int size) {
  if (!bench.wanted(twin)) return;
  const int side = int(std::floor(std::sqrt(double(size))));
  const size_t n = size_t(side) * side;
  const std::vector<float> h = small_integers(n, 5);
  Dev in(n * 4), out(n * 4);
  CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out.p, 0xFF, n * 4));
  const dim3 block(T / 4, kBlockRows), grid((side + T - 1) / T, (side + T - 1) / T);
  auto correct = [&] {
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), out.p, n * 4, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < size_t(side); ++r)
      for (size_t c = 0; c < size_t(side); ++c)
        if (got[c * side + r] != h[r * side + c]) return false;
    return true;
  };
  bench.run(
      twin, "plain", size, "m=n=" + std::to_string(side), 8.0 * double(n),
      [&] { transpose_float4<T><<<grid, block>>>(in.f(), out.f(), side, side); }, correct);
}

// transpose_vectorized: the 32 x 32 tile; transpose_large_tile: the 64 x 64 one.
void transpose_last(Harness& bench, int size) {
  transpose_float4_at<32>(bench, "transpose_vectorized", size);
  transpose_float4_at<64>(bench, "transpose_large_tile", size);
}

}  // namespace

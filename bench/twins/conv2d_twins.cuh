// The convolution family's twins (bench/family_twins.cu): the plain kernels
// of the steps the twins check stands for, written as a textbook writes them
// (no TileScope code), a shared tile with its halo (step 2) and the double
// buffered register tiles (the last step), with their runs.
#pragma once

#include "bench/twins/harness.cuh"

// 2D convolution: a (T + 2R)^2 input tile with its halo in shared memory, the
// (2R + 1)^2 mask in constant memory.
constexpr int kMaxConvRadius = 3;
__constant__ float mask_c[(2 * kMaxConvRadius + 1) * (2 * kMaxConvRadius + 1)];

template <int T, int R>
__global__ void conv2d_tiled(const float* in, float* out, int rows, int cols) {
  constexpr int kSide = T + 2 * R, w = 2 * R + 1;
  __shared__ float tile[kSide][kSide];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * T + tx, row = blockIdx.y * T + ty;
  const int top = blockIdx.y * T - R, left = blockIdx.x * T - R;
  const int y_top = top + ty, y_bottom = top + ty + T + R;
  const int x_left = left + tx, x_right = left + tx + T + R;
  const auto inside = [&](int y, int x) { return y >= 0 && y < rows && x >= 0 && x < cols; };
  tile[ty + R][tx + R] = inside(row, col) ? in[row * cols + col] : 0.0f;
  if (ty < R) {
    tile[ty][tx + R] = inside(y_top, col) ? in[y_top * cols + col] : 0.0f;
    tile[ty + T + R][tx + R] = inside(y_bottom, col) ? in[y_bottom * cols + col] : 0.0f;
  }
  if (tx < R) {
    tile[ty + R][tx] = inside(row, x_left) ? in[row * cols + x_left] : 0.0f;
    tile[ty + R][tx + T + R] = inside(row, x_right) ? in[row * cols + x_right] : 0.0f;
  }
  if (ty < R && tx < R) {
    tile[ty][tx] = inside(y_top, x_left) ? in[y_top * cols + x_left] : 0.0f;
    tile[ty][tx + T + R] = inside(y_top, x_right) ? in[y_top * cols + x_right] : 0.0f;
    tile[ty + T + R][tx] = inside(y_bottom, x_left) ? in[y_bottom * cols + x_left] : 0.0f;
    tile[ty + T + R][tx + T + R] = inside(y_bottom, x_right) ? in[y_bottom * cols + x_right] : 0.0f;
  }
  __syncthreads();
  if (row < rows && col < cols) {
    float sum = 0.0f;
    for (int i = 0; i < w; ++i)
      for (int j = 0; j < w; ++j)
        sum += mask_c[i * w + j] * tile[ty + i][tx + j];
    out[row * cols + col] = sum;
  }
}

// 2D convolution, double buffered: T x T threads, each a 4 x 4 register tile
// of each of 4 output tiles (4T x 4T) a block walks down the image; the input
// tile ((4T + 2R) x (4T + 8), rows starting 4 columns left of the output tile)
// in two shared stages, the next tile's float4s loaded into registers before
// the current one is computed; the mask in constant memory.
template <int T, int R>
__global__ void conv2d_double_buffer(const float* in, float* out, int rows, int cols) {
  constexpr int kSteps = 4, kHalo = 4, kW = 2 * R + 1, kOutSide = 4 * T;
  constexpr int kSideRows = kOutSide + 2 * R, kSideCols = kOutSide + 2 * kHalo;
  constexpr int kQuadsPerRow = kSideCols / 4, kQuads = kSideRows * kQuadsPerRow;
  constexpr int kThreads = T * T, kLoadsPerThread = (kQuads + kThreads - 1) / kThreads;
  __shared__ __align__(16) float tile[2 * kSideRows][kSideCols];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
  const int left = blockIdx.x * kOutSide - kHalo, first_row = blockIdx.y * kOutSide * kSteps;
  float4 next[kLoadsPerThread];
  const auto fetch = [&](int top) {
#pragma unroll
    for (int u = 0; u < kLoadsPerThread; ++u) {
      const int q = tid + u * kThreads;
      next[u] = float4{0.0f, 0.0f, 0.0f, 0.0f};
      if (q >= kQuads) break;
      const int r = q / kQuadsPerRow, s = 4 * (q % kQuadsPerRow), y = top + r, x = left + s;
      if (y < 0 || y >= rows) continue;
      if (cols % 4 == 0 && x >= 0 && x + 3 < cols) {
        next[u] = *reinterpret_cast<const float4*>(in + y * cols + x);
      } else {
        if (x >= 0 && x < cols) next[u].x = in[y * cols + x];
        if (x + 1 >= 0 && x + 1 < cols) next[u].y = in[y * cols + x + 1];
        if (x + 2 >= 0 && x + 2 < cols) next[u].z = in[y * cols + x + 2];
        if (x + 3 >= 0 && x + 3 < cols) next[u].w = in[y * cols + x + 3];
      }
    }
  };
  const auto stash = [&](int stage) {
#pragma unroll
    for (int u = 0; u < kLoadsPerThread; ++u) {
      const int q = tid + u * kThreads;
      if (q >= kQuads) break;
      const int r = q / kQuadsPerRow, s = 4 * (q % kQuadsPerRow);
      *reinterpret_cast<float4*>(&tile[stage * kSideRows + r][s]) = next[u];
    }
  };
  fetch(first_row - R);
  stash(0);
  __syncthreads();
  for (int step = 0; step < kSteps; ++step) {
    const int row0 = first_row + step * kOutSide;
    const bool more = step + 1 < kSteps && row0 + kOutSide < rows;
    if (more) fetch(row0 + kOutSide - R);
    const int stage = step % 2;
    float acc[4][4] = {};
#pragma unroll
    for (int ir = 0; ir < 4 + 2 * R; ++ir) {
      float v[12];
#pragma unroll
      for (int q = 0; q < 3; ++q) {
        const float4 t = *reinterpret_cast<const float4*>(
            &tile[stage * kSideRows + 4 * ty + ir][4 * tx + 4 * q]);
        v[4 * q] = t.x, v[4 * q + 1] = t.y, v[4 * q + 2] = t.z, v[4 * q + 3] = t.w;
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int i = ir - k;
        if (i < 0 || i >= kW) continue;
#pragma unroll
        for (int j = 0; j < kW; ++j) {
          const float weight = mask_c[i * kW + j];
#pragma unroll
          for (int c = 0; c < 4; ++c)
            acc[k][c] += weight * v[kHalo - R + c + j];
        }
      }
    }
    const int col = blockIdx.x * kOutSide + 4 * tx;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int row = row0 + 4 * ty + k;
      if (row >= rows) continue;
      if (cols % 4 == 0 && col + 3 < cols) {
        *reinterpret_cast<float4*>(out + row * cols + col) =
            make_float4(acc[k][0], acc[k][1], acc[k][2], acc[k][3]);
      } else {
        for (int c = 0; c < 4; ++c)
          if (col + c < cols) out[row * cols + col + c] = acc[k][c];
      }
    }
    if (!more) break;
    stash(1 - stage);
    __syncthreads();
  }
}

// ---- the runs

namespace {

// Both convolution twins' CPU check: every output against the exact sum
// (integer inputs and mask, zero outside the image).
bool conv2d_matches(const Dev& out, const std::vector<float>& h, const std::vector<float>& mask,
                    int side, int R) {
  const size_t n = size_t(side) * side;
  const int w = 2 * R + 1;
  std::vector<float> got(n);
  CHECK(cudaMemcpy(got.data(), out.p, n * 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) {
      double sum = 0;
      for (int i = 0; i < w; ++i)
        for (int j = 0; j < w; ++j) {
          const int y = r - R + i, x = c - R + j;
          if (y >= 0 && y < side && x >= 0 && x < side)
            sum += double(mask[size_t(i * w + j)]) * h[size_t(y) * side + x];
        }
      if (double(got[size_t(r) * side + c]) != sum) return false;
    }
  return true;
}

template <int T, int R>
void conv2d_at(Harness& bench, int size, int side) {
  const size_t n = size_t(side) * side;
  const int w = 2 * R + 1;
  const std::vector<float> h = small_integers(n, 5), mask = small_integers(size_t(w * w), 7);
  Dev in(n * 4), out(n * 4);
  CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(mask_c, mask.data(), size_t(w * w) * 4));
  CHECK(cudaMemset(out.p, 0xFF, n * 4));
  auto correct = [&] { return conv2d_matches(out, h, mask, side, R); };
  const dim3 block(T, T), grid((side + T - 1) / T, (side + T - 1) / T);
  bench.run(
      "conv2d_tiled", "plain", size,
      "m=n=" + std::to_string(side) + " tile=" + std::to_string(T) + " radius=" + std::to_string(R),
      8.0 * double(n) + 4.0 * w * w,
      [&] { conv2d_tiled<T, R><<<grid, block>>>(in.f(), out.f(), side, side); }, correct);
}

template <int T, int R>
bool conv2d_if(Harness& bench, int size, int side) {
  if (bench.o.conv_tile != T || bench.o.conv_radius != R) return false;
  conv2d_at<T, R>(bench, size, side);
  return true;
}

void conv2d(Harness& bench, int size) {
  if (!bench.wanted("conv2d_tiled")) return;
  const int side = int(std::floor(std::sqrt(double(size))));
  const bool ran = conv2d_if<8, 1>(bench, size, side) || conv2d_if<8, 2>(bench, size, side) ||
                   conv2d_if<8, 3>(bench, size, side) || conv2d_if<16, 1>(bench, size, side) ||
                   conv2d_if<16, 2>(bench, size, side) || conv2d_if<16, 3>(bench, size, side) ||
                   conv2d_if<32, 1>(bench, size, side) || conv2d_if<32, 2>(bench, size, side) ||
                   conv2d_if<32, 3>(bench, size, side);
  if (!ran)
    std::fprintf(stderr,
                 "conv2d_tiled: tile %d radius %d not compiled (tiles 8, 16, 32; "
                 "radius 1 to 3)\n",
                 bench.o.conv_tile, bench.o.conv_radius);
}

template <int R>
bool conv2d_db_if(Harness& bench, int size, int side) {
  if (bench.o.conv_radius != R) return false;
  constexpr int T = 16, kSteps = 4;
  const size_t n = size_t(side) * side;
  const int w = 2 * R + 1;
  const std::vector<float> h = small_integers(n, 5), mask = small_integers(size_t(w * w), 7);
  Dev in(n * 4), out(n * 4);
  CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(mask_c, mask.data(), size_t(w * w) * 4));
  CHECK(cudaMemset(out.p, 0xFF, n * 4));
  auto correct = [&] { return conv2d_matches(out, h, mask, side, R); };
  const dim3 block(T, T),
      grid((side + 4 * T - 1) / (4 * T), (side + 4 * T * kSteps - 1) / (4 * T * kSteps));
  bench.run(
      "conv2d_double_buffer", "plain", size,
      "m=n=" + std::to_string(side) + " tile=16 radius=" + std::to_string(R),
      8.0 * double(n) + 4.0 * w * w,
      [&] { conv2d_double_buffer<T, R><<<grid, block>>>(in.f(), out.f(), side, side); }, correct);
  return true;
}

// The conv2d family's last step (double buffered) at its timed tile, T = 16,
// and the --conv-radius.
void conv2d_db(Harness& bench, int size) {
  if (!bench.wanted("conv2d_double_buffer")) return;
  const int side = int(std::floor(std::sqrt(double(size))));
  const bool ran = conv2d_db_if<1>(bench, size, side) || conv2d_db_if<2>(bench, size, side) ||
                   conv2d_db_if<3>(bench, size, side);
  if (!ran)
    std::fprintf(stderr, "conv2d_double_buffer: radius %d not compiled (1 to 3)\n",
                 bench.o.conv_radius);
}

}  // namespace

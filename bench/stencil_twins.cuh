// The stencil and convolution twins of bench/family_twins.cu: the plain
// kernels of the families' steps the twins check stands for, written as a
// textbook writes them (no TileScope code). Included by family_twins.cu only.
#pragma once

#include <cuda_runtime.h>

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

/* tilescope:
   kernel block_sum
   params length=256
   grid length / 64
   block 64
   array in in length
   array out out length / 64
   reference sums
*/
// A block's sum as the reduction blogs write it: each warp adds its lanes
// with __shfl_xor_sync, lane 0 keeps the warp's sum in a `static __shared__`
// array, and the first warp adds those. The input is read with __ldg.
__inline__ __device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

__global__ void block_sum(const float* in, float* out) {
  static __shared__ float partial[32];
  int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  float v = warp_sum(__ldg(&in[blockIdx.x * blockDim.x + threadIdx.x]));
  if (lane == 0) partial[wid] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / warpSize ? partial[lane] : 0;
  if (wid == 0) v = warp_sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

void sums(const float* in, float* out) {
  for (int b = 0; b < 4; ++b) {
    out[b] = 0;
    for (int i = 0; i < 64; ++i)
      out[b] += in[b * 64 + i];
  }
}

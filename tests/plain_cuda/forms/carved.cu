/* tilescope:
   kernel k
   params length=64
   grid 2
   block 32
   shared 64 * 4
   array a in length
   array b out length
   arg n = length
   reference copy
*/
// Two arrays carved from one extern __shared__ array by pointers, as the
// programming guide does for several dynamic arrays, and a float2 value.
__global__ void k(const float* a, float* b, int n) {
  extern __shared__ float s[];
  float* first = s;
  float* second = &s[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  first[threadIdx.x] = a[i];
  second[threadIdx.x] = 0.0f;
  __syncthreads();
  unsigned active = 0xffffffff;
  float v = first[threadIdx.x];
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    v += 0.0f * __shfl_xor_sync(active, v, o);
  float2 pair = make_float2(v, 1.0f);
  b[i] = pair.x * pair.y + second[threadIdx.x];
}

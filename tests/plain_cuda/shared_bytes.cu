// Bytes through a __shared__ byte array: each block reverses its 64 bytes
// and flips some bits. 32 lanes on 32 consecutive bytes are 8 bank words.
/* tilescope:
   kernel reverse_bytes
   params length=256
   grid length / 64
   block 64
   array in in length
   array out out length
   arg n = length
   reference reverse_cpu
*/
#include <cstdint>

__global__ void reverse_bytes(const uint8_t* in, uint8_t* out, int n) {
  __shared__ uint8_t tile[64];
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  if (base + t < n) tile[t] = in[base + t];
  __syncthreads();
  if (base + t < n) out[base + t] = tile[63 - t] ^ 0x5a;
}

void reverse_cpu(const uint8_t* in, uint8_t* out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = uint8_t(in[i / 64 * 64 + 63 - i % 64] ^ 0x5a);
}

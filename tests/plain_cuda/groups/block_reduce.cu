/* tilescope:
   kernel block_sum
   params length=1000
   grid (length + BLOCK - 1) / BLOCK
   block BLOCK
   shared BLOCK * 4
   array in in length
   array out out (length + BLOCK - 1) / BLOCK
   arg n = length
   reference block_sums
   terms BLOCK
*/
// A block's sum in the style of the CUDA samples' reductions: the block as a
// cooperative group, its barrier cg::sync(cta) and cta.sync(), and the last
// 64 values summed by the first warp as a tile of 32 with shfl_down.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define BLOCK 128

__global__ void block_sum(const float* in, float* out, unsigned n) {
  cg::thread_block cta = cg::this_thread_block();
  extern __shared__ float partial[];
  unsigned tid = cta.thread_rank();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < n ? in[i] : 0.0f;
  cg::sync(cta);
  for (unsigned s = cta.size() / 2; s > 32; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    cta.sync();
  }
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    float sum = partial[tid] + partial[tid + 32];
    for (int offset = warp.size() / 2; offset > 0; offset /= 2)
      sum += warp.shfl_down(sum, offset);
    if (warp.thread_rank() == 0) out[blockIdx.x] = sum;
  }
}

void block_sums(const float* in, float* out, unsigned n) {
  for (unsigned b = 0; b * BLOCK < n; ++b) {
    float s = 0;
    for (unsigned i = b * BLOCK; i < n && i < (b + 1) * BLOCK; ++i)
      s += in[i];
    out[b] = s;
  }
}

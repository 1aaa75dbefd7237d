/* tilescope:
   kernel tile_sums
   params length=256
   grid length / 64
   block 64
   array in in length
   array sums out length / 16
   array reduced out length / 16
   array votes out length / 16
   arg n = length
   reference by_tile
*/
// Tiles of 16 threads: one function written for any group (the style of
// NVIDIA's cooperative groups introduction) sums a tile through shared
// memory with g.sync(); cg::reduce sums it again with shuffles; a ballot
// counts the tile's odd inputs.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
using namespace cooperative_groups;

template <typename Group>
__device__ int sum_in(Group g, int* scratch, int v) {
  int lane = g.thread_rank();
  for (int half = g.size() / 2; half > 0; half /= 2) {
    scratch[lane] = v;
    g.sync();
    if (lane < half) v += scratch[lane + half];
    g.sync();
  }
  return v;
}

__global__ void tile_sums(const int* in, int* sums, int* reduced, int* votes, int n) {
  __shared__ int scratch[64];
  thread_block block = this_thread_block();
  thread_block_tile<16> tile = tiled_partition<16>(block);
  int* mine = &scratch[tile.meta_group_rank() * 16];
  int i = blockIdx.x * 64 + block.thread_rank();
  int v = i < n ? in[i] : 0;
  int s = sum_in(tile, mine, v);
  int r = cooperative_groups::reduce(tile, v, plus<int>());
  unsigned odd = tile.ballot(v % 2 != 0);
  int slot = blockIdx.x * 4 + tile.meta_group_rank();
  if (tile.thread_rank() == 0) {
    sums[slot] = s;
    reduced[slot] = r;
    votes[slot] = __popc(odd);
  }
}

void by_tile(const int* in, int* sums, int* reduced, int* votes, int n) {
  for (int t = 0; t < n / 16; ++t) {
    int s = 0, odd = 0;
    for (int i = 0; i < 16; ++i)
      s += in[t * 16 + i], odd += in[t * 16 + i] % 2 != 0;
    sums[t] = s, reduced[t] = s, votes[t] = odd;
  }
}

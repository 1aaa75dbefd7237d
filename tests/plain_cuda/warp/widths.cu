/* tilescope:
   kernel widths
   params n=1
   grid 1
   block 32
   array out out 6 * 32
*/
__global__ void widths(float* out) {
  const int lane = threadIdx.x;
  const float mine = float(lane);
  out[0 * 32 + lane] = __shfl_down_sync(0xffffffff, mine, 4, 16);
  out[1 * 32 + lane] = __shfl_up_sync(0xffffffff, mine, 4, 16);
  out[2 * 32 + lane] = __shfl_sync(0xffffffff, mine, 17, 16);
  out[3 * 32 + lane] = __shfl_xor_sync(0xffffffff, mine, 20, 16);
  float all = mine + 1.0f, half = mine + 1.0f;
  for (int s = 16; s > 0; s /= 2)
    all += __shfl_xor_sync(0xffffffff, all, s);
  for (int s = 8; s > 0; s /= 2)
    half += __shfl_down_sync(0xffffffff, half, s, 16);
  out[4 * 32 + lane] = all;
  out[5 * 32 + lane] = half;
}

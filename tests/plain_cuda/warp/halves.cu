/* tilescope:
   kernel halves
   params n=1
   grid 1
   block 48
   array out out 4 * 48
*/
__global__ void halves(float* out) {
  const int t = threadIdx.x, lane = t % 32;
  float v = float(lane);
  if (lane < 16) v += __shfl_down_sync(0x0000ffff, v, 8, 16);
  if (t < 32) v += __shfl_down_sync(0xffffffff, v, 16);
  const unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  out[t] = v;
  out[48 + t] = float(__ballot_sync(half, lane % 3 == 0));
  out[96 + t] = float(__any_sync(half, lane == 5));
  out[144 + t] = float(__all_sync(half, lane < 16));
}

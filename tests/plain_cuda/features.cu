// What plain CUDA a course uses, in one kernel, checked against the host
// reference below (tests/test_plain_cuda.cpp): __device__ helpers taking
// pointers, &s[i], pointer arithmetic, 2D and scalar __shared__, `auto` as a
// value, shuffles (down, xor), a ballot, atomics (Add, Max, CAS),
// __syncwarp(mask), a struct, ++, -= and += on elements.
/* tilescope:
   kernel features
   params length=128 block=64
   grid length / block
   block block
   array in in length
   array out out length
   array stats out 2
   arg n = length
   reference features_reference
*/

struct Pair {
    float lo, hi;
};

__device__ float twice(const float* p, int i) { return 2.0f * p[i]; }

__device__ void bump(float* cell) { *cell += 1.0f; }

__device__ float warp_sum(float v) {
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffff, v, d);
    return v;
}

__global__ void features(const float* in, float* out, int* stats, int n) {
    __shared__ float tile[2][32];
    __shared__ int count;
    const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    const int w = t / 32, lane = t % 32;
    if (t == 0) count = 0;
    tile[w][lane] = in[i];
    __syncthreads();
    auto v = tile[w][lane];
    v += 100.0f;
    float* row = &tile[w][0];
    float left = lane > 0 ? row[lane - 1] : 0.0f;
    const float* p = in + blockIdx.x * blockDim.x;
    p++;
    --p;
    float x = twice(p, t) - left;
    float s = warp_sum(tile[w][lane]);
    float mate = __shfl_xor_sync(0xffffffff, x, 1);
    unsigned odd = __ballot_sync(0xffffffff, lane % 2 == 1);
    atomicAdd(&count, 1);
    if (i < n) atomicMax(&stats[0], i);
    atomicCAS(&stats[1], 0, 7);
    __syncwarp(0xffffffff);
    __syncthreads();
    Pair pr{v - tile[w][lane], mate};
    float r = pr.lo + pr.hi + s + __popc(odd) + count;
    r -= 1.0f;
    out[i] = r;
    bump(&out[i]);
    out[i]++;
    out[i] -= 1.0f;
}

// The same on the CPU, one warp at a time.
void features_reference(const float* in, float* out, int* stats, int n) {
    const int block = 64;
    for (int base = 0; base < n; base += 32) {
        float v[32], x[32];
        for (int l = 0; l < 32; ++l) {
            v[l] = in[base + l];
            x[l] = 2.0f * in[base + l] - (l > 0 ? in[base + l - 1] : 0.0f);
        }
        for (int d = 16; d > 0; d /= 2) {
            float next[32];
            for (int l = 0; l < 32; ++l)
                next[l] = v[l] + (l + d < 32 ? v[l + d] : v[l]);
            for (int l = 0; l < 32; ++l)
                v[l] = next[l];
        }
        for (int l = 0; l < 32; ++l)
            out[base + l] = 100.0f + x[l ^ 1] + v[l] + 16.0f + float(block) - 1.0f + 1.0f;
    }
    stats[0] = n - 1;
    stats[1] = 7;
}

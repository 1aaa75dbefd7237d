/* tilescope:
   kernel conv2d_tiled
   params n=37
   grid (n + OUT_W - 1) / OUT_W, (n + OUT_W - 1) / OUT_W
   block IN_W, IN_W
   array image in n, n
   array mask in 2 * R + 1, 2 * R + 1
   array result out n, n
   arg width = n
   reference conv2d_host
*/
// A 2D convolution as the textbooks teach it: the mask in constant memory
// (main copied it there with cudaMemcpyToSymbol), an input tile with its halo
// in shared memory, and the threads of the halo idle while the rest compute.
#define R 2
#define IN_W 16
#define OUT_W (IN_W - 2 * R)

__constant__ float mask[2 * R + 1][2 * R + 1];

__global__ void conv2d_tiled(const float* image, float* result, int width) {
  int col = blockIdx.x * OUT_W + threadIdx.x - R;
  int row = blockIdx.y * OUT_W + threadIdx.y - R;
  __shared__ float tile[IN_W][IN_W];
  bool inside = row >= 0 && row < width && col >= 0 && col < width;
  tile[threadIdx.y][threadIdx.x] = inside ? image[row * width + col] : 0.0f;
  __syncthreads();
  int tx = threadIdx.x - R, ty = threadIdx.y - R;
  if (inside && tx >= 0 && tx < OUT_W && ty >= 0 && ty < OUT_W) {
    float sum = 0.0f;
    for (int i = 0; i < 2 * R + 1; ++i)
      for (int j = 0; j < 2 * R + 1; ++j)
        sum += mask[i][j] * tile[ty + i][tx + j];
    result[row * width + col] = sum;
  }
}

// The host's answer, reading the mask where main put it.
void conv2d_host(const float* image, float* result, int width) {
  for (int r = 0; r < width; ++r)
    for (int c = 0; c < width; ++c) {
      float sum = 0.0f;
      for (int i = 0; i < 2 * R + 1; ++i)
        for (int j = 0; j < 2 * R + 1; ++j) {
          int y = r - R + i, x = c - R + j;
          if (y >= 0 && y < width && x >= 0 && x < width) sum += mask[i][j] * image[y * width + x];
        }
      result[r * width + c] = sum;
    }
}

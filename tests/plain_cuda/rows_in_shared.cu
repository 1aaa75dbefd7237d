// Seed 004 ("Using Shared Memory for Matrix Multiplication"), option 1: a
// row of A in shared memory, as the tutorial prints it (TILE_DIM and
// TILE_WIDTH are not shown there: both 16; it works only when width is 16).
/* tilescope:
   kernel matrix_mul
   params n=16
   grid n / TILE_WIDTH, n / TILE_WIDTH
   block TILE_WIDTH, TILE_WIDTH
   array a in n, n
   array b in n, n
   array c out n, n
   arg width = n
   reference matmul
*/
#define TILE_DIM 16
#define TILE_WIDTH 16

__global__ void matrix_mul(float *a, float* b, float *c, int width)
{
    __shared__ float aTile[TILE_DIM][TILE_DIM];

    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float single_entry = 0.0f;

    aTile[threadIdx.y][threadIdx.x] = a[row * TILE_WIDTH + threadIdx.x];
    __syncwarp(); // Synchronize all threads in the warp

    for (int i = 0; i < width; i++) 
    {
        single_entry += aTile[threadIdx.y][i] * b[i * width + col];
    }

    c[row * width + col] = single_entry;
}

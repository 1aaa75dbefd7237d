// Seed 004 ("Using Shared Memory for Matrix Multiplication"): the tiled
// multiply, as the tutorial prints it (TILE_WIDTH not shown there: 16; width
// must be a multiple of it).
/* tilescope:
   kernel matrix_mul
   params n=32
   grid n / TILE_WIDTH, n / TILE_WIDTH
   block TILE_WIDTH, TILE_WIDTH
   array d_a in n, n
   array d_b in n, n
   array d_c out n, n
   arg width = n
   reference matmul
*/
#define TILE_WIDTH 16

__global__ void matrix_mul(const float *d_a, const float *d_b, 
                           float *d_c, int width)
{
    __shared__ float a_block[TILE_WIDTH][TILE_WIDTH];
    __shared__ float b_block[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    int row = by * TILE_WIDTH + ty;
    int col = bx * TILE_WIDTH + tx;

    float single_entry = 0;

    for (int i = 0; i < width / TILE_WIDTH; ++i)
    {
        // Load tiles of A and B into shared memory
        a_block[ty][tx] = d_a[row * width + (i * TILE_WIDTH + tx)];
        b_block[ty][tx] = d_b[col + (i * TILE_WIDTH + ty) * width];

        __syncthreads(); // Ensure all threads have loaded their tile

        // Perform the partial matrix multiplication for this tile
        for (int j = 0; j < TILE_WIDTH; ++j)
        {
            single_entry += a_block[ty][j] * b_block[j][tx];
        }

        __syncthreads(); // Synchronize before loading the next tile
    }

    d_c[row * width + col] = single_entry;
}

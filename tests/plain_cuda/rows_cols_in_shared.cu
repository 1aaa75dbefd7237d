// Seed 004 ("Using Shared Memory for Matrix Multiplication"), option 2: a
// row of A and a column of B in shared memory, as the tutorial prints it
// (TILE_DIM and TILE_WIDTH not shown there: both 16; width must be 16).
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
    __shared__ float bTile[TILE_DIM][TILE_DIM];

    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    aTile[threadIdx.y][threadIdx.x] = a[row * TILE_WIDTH + threadIdx.x];
    bTile[threadIdx.y][threadIdx.x] = b[threadIdx.y * width + col];

    __syncthreads(); // Ensure all data is loaded into shared memory

    float single_entry = 0.0f;    
    for (int i = 0; i < width; i++) 
    { 
        single_entry += aTile[threadIdx.y][i] * bTile[i][threadIdx.x];    
    }

    c[row * width + col] = single_entry;
}

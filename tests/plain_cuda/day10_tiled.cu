// Seed 000 ("Day 10: Shared Memory Fundamentals"): the tiled multiply with
// bounds checks, as the tutorial prints it. Only the launch is described.
/* tilescope:
   kernel tiledMatrixMul
   params n=37
   grid (n + TILE_WIDTH - 1) / TILE_WIDTH, (n + TILE_WIDTH - 1) / TILE_WIDTH
   block TILE_WIDTH, TILE_WIDTH
   array A in n, n
   array B in n, n
   array C out n, n
   arg width = n
   reference matmul
*/

// Define tile width (adjust according to hardware capabilities)
#define TILE_WIDTH 16

__global__ void tiledMatrixMul(const float *A, const float *B, float *C, int width) {
    // Allocate shared memory for tiles of A and B
    __shared__ float tileA[TILE_WIDTH][TILE_WIDTH];
    __shared__ float tileB[TILE_WIDTH][TILE_WIDTH];

    // Calculate row and column indices of the element of C computed by this thread
    int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
    int col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    float Pvalue = 0.0f;

    // Loop over all tiles needed to compute C[row][col]
    // 'm' indexes the tiles along the shared dimension
    for (int m = 0; m < (width + TILE_WIDTH - 1) / TILE_WIDTH; m++) {
        // Load tile from matrix A into shared memory if within bounds
        if (row < width && (m * TILE_WIDTH + threadIdx.x) < width) {
            tileA[threadIdx.y][threadIdx.x] = A[row * width + m * TILE_WIDTH + threadIdx.x];
        } else {
            tileA[threadIdx.y][threadIdx.x] = 0.0f;
        }
        // Load tile from matrix B into shared memory if within bounds
        if (col < width && (m * TILE_WIDTH + threadIdx.y) < width) {
            tileB[threadIdx.y][threadIdx.x] = B[(m * TILE_WIDTH + threadIdx.y) * width + col];
        } else {
            tileB[threadIdx.y][threadIdx.x] = 0.0f;
        }

        // Synchronize to ensure all data is loaded into shared memory
        __syncthreads();

        // Perform multiplication for the tile and accumulate the result
        for (int k = 0; k < TILE_WIDTH; k++) {
            Pvalue += tileA[threadIdx.y][k] * tileB[k][threadIdx.x];
        }

        // Synchronize to make sure computation is done before loading new tiles
        __syncthreads();
    }

    // Write the result to global memory if within bounds
    if (row < width && col < width) {
        C[row * width + col] = Pvalue;
    }
}

// Seed 003 ("CUDA C/C++ 从入门到入土", the summer camp's shared memory
// lesson): tiled multiply of int matrices M[m][n] * N[n][k] = c[m][k], as
// the post prints it (comments left out; BLOCK_SIZE is not shown there).
// The post's n is the shared dimension, its k the columns of c: TileScope's
// k and n, bound below.
/* tilescope:
   kernel gpu_shared_mult_try2
   params m=32 k=48 n=32
   grid (n + BLOCK_SIZE - 1) / BLOCK_SIZE, (m + BLOCK_SIZE - 1) / BLOCK_SIZE
   block BLOCK_SIZE, BLOCK_SIZE
   array a in m, k
   array b in k, n
   array c out m, n
   arg n = k; arg k = n
   reference matmul
*/
#define BLOCK_SIZE 16

__global__ void gpu_shared_mult_try2(int *a,int *b, int *c, int m,int n, int k)
{

    int ty = blockIdx.y * blockDim.y + threadIdx.y;
    int tx = blockIdx.x * blockDim.x + threadIdx.x;

    __shared__ int L[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ int R[BLOCK_SIZE][BLOCK_SIZE];
    int sum = 0;
    int index_l;
    int index_r;

    if (ty <  ((m / BLOCK_SIZE)+1)*BLOCK_SIZE && tx < ((k / BLOCK_SIZE)+1)*BLOCK_SIZE)
    {
        for (int i=0; i < n/BLOCK_SIZE; i++)
        {
            index_l = ty * n + i * BLOCK_SIZE + threadIdx.x;
            index_r = (i * BLOCK_SIZE + threadIdx.y) * k + tx;
            L[threadIdx.y][threadIdx.x] = (i * BLOCK_SIZE + threadIdx.x) < n ? a[index_l]:0;
            R[threadIdx.y][threadIdx.x] = (threadIdx.y + i * BLOCK_SIZE) < n ? b[index_r]:0;
            __syncthreads();
            for (int i=0; i < BLOCK_SIZE;i++)
            {
                sum += L[threadIdx.y][i] * R[i][threadIdx.x];

            }
            __syncthreads();

        }
        c[ty * k + tx] = sum;
    }



}

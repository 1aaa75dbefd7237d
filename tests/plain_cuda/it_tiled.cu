// Seed 001 ("CUDA: memoria condivisa"), the third kernel: tiles in shared
// memory, as the slides print it (`alpha`, undeclared there, is 1 here; the
// slides draw TILEWIDTH = 2 and configure 16).
/* tilescope:
   kernel my_sgemv_2kernel
   params n=32
   grid n / TILEWIDTH, n / TILEWIDTH
   block TILEWIDTH, TILEWIDTH
   array A in n, n
   array B in n, n
   array C out n, n
   arg M = n; arg K = n; arg lda = n; arg ldb = n; arg ldc = n
   reference matmul
*/
#define TILEWIDTH 16
#define alpha 1.0f

__global__ void my_sgemv_2kernel (int M, int K, float *A, int lda,
                                  float *B, int ldb, float *C, int ldc) {
    __shared__ float As[TILEWIDTH][TILEWIDTH];
    __shared__ float Bs[TILEWIDTH][TILEWIDTH];

    int idx_x = blockIdx.x * TILEWIDTH + threadIdx.x;
    int idx_y = blockIdx.y * TILEWIDTH + threadIdx.y;
    int jj, kk; float sum = 0;

    for(kk = 0; kk < K/TILEWIDTH; kk++){
        As[threadIdx.y][threadIdx.x] =
            A[idx_y*lda + (kk*TILEWIDTH + threadIdx.x)];
        Bs[threadIdx.y][threadIdx.x] =
            B[(kk*TILEWIDTH + threadIdx.y) * ldb + idx_x];

        __syncthreads();

        for(jj = 0; jj < TILEWIDTH; jj++)
            sum += As[threadIdx.y][jj] * Bs[jj][threadIdx.x];

        __syncthreads();
    }

    C[idx_y*ldc + idx_x] += alpha*sum;
}

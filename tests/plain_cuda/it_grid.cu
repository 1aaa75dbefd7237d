// Seed 001 ("CUDA: memoria condivisa"), the second kernel: a grid of blocks,
// as the slides print it (`alpha`, undeclared there, is 1 here).
/* tilescope:
   kernel my_sgemv_1kernel
   params n=40
   grid (n + 15) / 16, (n + 15) / 16
   block 16, 16
   array A in n, n
   array B in n, n
   array C out n, n
   arg M = n; arg K = n; arg lda = n; arg ldb = n; arg ldc = n
   reference matmul
*/
#define alpha 1.0f

__global__ void my_sgemv_1kernel (int M, int K, float *A,
                                   int lda, float *B, int ldb, float *C, int ldc)
{
    int idx_x = blockIdx.x * blockDim.x + threadIdx.x;
    int idx_y = blockIdx.y * blockDim.y + threadIdx.y;
    int kk; float sum = 0;

    if (idx_x < M && idx_y < M){
        for(kk = 0; kk < K; kk++){
            sum += A[idx_y*lda+kk] * B[kk*ldb + idx_x];
        }
        C[idx_y*ldc + idx_x] += alpha*sum;
    }
}

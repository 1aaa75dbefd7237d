// Seed 001 ("CUDA: memoria condivisa"), the first kernel: one block, one
// thread per element of C, as the slides print it. The slides use `alpha`
// without declaring it; it is 1 here. Only the launch is described.
/* tilescope:
   kernel my_sgemv_0kernel
   params n=12
   grid 1
   block 16, 16
   array A in n, n
   array B in n, n
   array C out n, n
   arg M = n; arg K = n; arg lda = n; arg ldb = n; arg ldc = n
   reference matmul
*/
#define alpha 1.0f

__global__ void my_sgemv_0kernel (int M, int K, float *A,
                                   int lda, float *B, int ldb, float *C, int ldc)
{
    int idx_x = threadIdx.x;
    int idx_y = threadIdx.y;
    int kk; float sum = 0;

    if (idx_x < M && idx_y < M){
        for(kk = 0; kk < K; kk++){
            sum += A[idx_y*lda+kk] * B[kk*ldb + idx_x];
        }
        C[idx_y*ldc + idx_x] += alpha*sum;
    }
}

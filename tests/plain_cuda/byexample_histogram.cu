// CUDA by Example, chapter 9: the shared-memory histogram of a byte buffer,
// as the book prints it. The buffer holds unsigned char: one byte a load.
/* tilescope:
   kernel histo_kernel
   params length=4096
   grid 8
   block 256
   array buffer in length
   arg size = length
   array histo out 256
   reference histo_cpu
*/
__global__ void histo_kernel( unsigned char *buffer, long size, unsigned int *histo ) {
    __shared__  unsigned int temp[256];
    temp[threadIdx.x] = 0;
    __syncthreads();
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd( &temp[buffer[i]], 1 );
        i += offset;
    }
    __syncthreads();
    atomicAdd( &(histo[threadIdx.x]), temp[threadIdx.x] );
}

// The book's check, on the CPU: every byte counted once.
void histo_cpu( unsigned char *buffer, long size, unsigned int *histo ) {
    for (long i = 0; i < size; i++)
        histo[buffer[i]]++;
}

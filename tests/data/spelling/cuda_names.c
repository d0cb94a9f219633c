/* identifiers that CUDA predeclares and the kernels use (isl's max and min too), and
   a name the renaming must step over (int2_ is taken). */
#include <stdio.h>
#define N 64
static double max[N], threadIdx[N], dim3[N], int2[N], int2_[N];
static double warpSize;
void kernel(int n, int min, int blockDim, double atomicAdd, double gridDim)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = min; j < n; j++)
      max[i] += threadIdx[j] * atomicAdd + blockDim + dim3[i];
    int2[i] = max[i] > 0 ? gridDim : -gridDim;
    int2_[i] = int2[i] - 1;
  }
  for (i = 0; i < n; i++)
    warpSize += int2[i] * max[i];
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) { max[i] = i * 0.5 - 9; threadIdx[i] = 1.0 / (i + 1); dim3[i] = i % 5; }
  warpSize = 1.0;
  kernel(N, 3, 7, 1.5, 2.0);
  printf("@ max hex\n"); for (int i = 0; i < N; i++) printf("%a\n", max[i]);
  printf("@ int2 hex\n"); for (int i = 0; i < N; i++) printf("%a\n", int2_[i]);
  printf("@ warpSize double\n%.17g\n", warpSize);
  return 0;
}

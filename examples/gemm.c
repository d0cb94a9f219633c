/* C = alpha * A * B + beta * C on fixed-size arrays, with a main that prints a
   checksum: `polycu examples/gemm.c -o gemm.cu` turns it into a CUDA program
   that nvcc builds and that prints the same checksum. */
#include <stdio.h>

#ifndef NI
#define NI 200
#endif
#ifndef NJ
#define NJ 220
#endif
#ifndef NK
#define NK 240
#endif

static double A[NI][NK], B[NK][NJ], C[NI][NJ];

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(void)
{
  int i, j;
  double sum = 0.0;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i][j] = (double) ((i * j + 1) % NI) / NI;
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i][j] = (double) ((i * (j + 1)) % NJ) / NJ;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      C[i][j] = (double) ((i * (j + 2)) % NK) / NK;
  kernel_gemm(NI, NJ, NK, 1.5, 1.2);
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      sum += C[i][j] * ((i + j) % 7 + 1);
  printf("checksum %.6f\n", sum);
  return 0;
}

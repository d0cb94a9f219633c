/* Matrices in flat buffers, the offsets computed by hand: C = alpha A B + beta C with
   B transposed in its buffer (Bt[j * p + k]), the row offsets written n * i and
   (i + 1) * m - m, and a row sum into a second flat buffer. */
#include <stdio.h>
#include <stdlib.h>

void gemm_flat(int n, int m, int p, double alpha, double beta, double *C,
               const double *A, const double *Bt, double *S)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      C[n * 0 + i * m + j] *= beta;
      for (int k = 0; k < p; k++)
        C[(i + 1) * m - m + j] += alpha * A[i * p + k] * Bt[j * p + k];
    }
  for (int i = 0; i < n; i++) {
    S[2 * i] = 0.0;
    for (int j = 0; j < m; j++)
      S[2 * i] += C[m * i + j];
  }
#pragma endscop
}

int main(void)
{
  int n = 37, m = 29, p = 41;
  double *C = malloc(sizeof(double) * n * m), *A = malloc(sizeof(double) * n * p);
  double *Bt = malloc(sizeof(double) * m * p), *S = malloc(sizeof(double) * 2 * n);
  for (int i = 0; i < n * m; i++) C[i] = (i % 13) - 6.5;
  for (int i = 0; i < n * p; i++) A[i] = ((i * 7) % 17) * 0.25 - 2;
  for (int i = 0; i < m * p; i++) Bt[i] = ((i * 5) % 11) * 0.5 - 2.5;
  for (int i = 0; i < 2 * n; i++) S[i] = -1;
  gemm_flat(n, m, p, 1.5, -0.75, C, A, Bt, S);
  for (int i = 0; i < n * m; i++) printf("%.17g\n", C[i]);
  for (int i = 0; i < 2 * n; i++) printf("%.17g\n", S[i]);
  free(C); free(A); free(Bt); free(S);
  return 0;
}

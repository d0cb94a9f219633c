#ifdef LARGE_DATASET
#define N 2000
#else
#define N 64
#endif
void mm(int n, double *C, const double *A, const double *B)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[i * n + j] = 0.0;
      for (int k = 0; k < n; k++)
        C[i * n + j] += A[i * n + k] * B[k * n + j];
    }
#pragma endscop
}

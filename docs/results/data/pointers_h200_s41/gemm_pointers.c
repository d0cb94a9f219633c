#ifdef LARGE_DATASET
#define N 2000
#else
#define N 64
#endif
void mm(int n, double *C, const double *A, const double *B)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double *ci = C + i * n;
    const double *ai = &A[i * n];
    for (int j = 0; j < n; j++) {
      ci[j] = 0.0;
      for (int k = 0; k < n; k++)
        ci[j] += ai[k] * *(B + k * n + j);
    }
  }
#pragma endscop
}

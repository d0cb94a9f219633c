#ifdef LARGE_DATASET
#define N 2000
#else
#define N 64
#endif
void mm(int n, double C[][n], const double A[][n], const double B[][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[i][j] = 0.0;
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
}

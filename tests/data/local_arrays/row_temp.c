/* A temporary row declared inside the SCoP: each i gets its own copy (expanded), so
   the rows run in parallel; main compares with plain loops. */
#include <stdio.h>
#define N 70

static void kernel(int n, double A[N][N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    double t[N];
    for (j = 0; j < n; j++)
      t[j] = A[i][j] * 2 - i;
    for (j = 0; j < n; j++)
      B[i][j] = t[j] + t[n - 1 - j];
  }
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N];
  int i, j, n = N - 5, bad = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (double) ((i * 7 - j * 3) % 11), B[i][j] = -9;
  kernel(n, A, B);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      double want = -9;
      if (i < n && j < n)
        want = (A[i][j] * 2 - i) + (A[i][n - 1 - j] * 2 - i);
      bad += B[i][j] != want;
    }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

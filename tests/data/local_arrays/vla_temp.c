/* A variable-length temporary (extent m) inside the SCoP, and one outside every loop
   (a single array for the whole SCoP); main compares with plain loops. */
#include <stdio.h>
#define N 60

static void kernel(int n, int m, double A[N][N], double B[N][N], double a[N], double b[N])
{
  int i, j;
#pragma scop
  {
    double s[N];
    for (i = 0; i < n; i++) {
      double t[m];
      for (j = 0; j < m; j++)
        t[j] = A[i][j] + i;
      for (j = 0; j < m; j++)
        B[i][m - 1 - j] = t[j] * t[j];
    }
    for (j = 0; j < n; j++)
      s[j] = a[j] * a[j];
    for (j = 0; j < n; j++)
      b[j] = s[n - 1 - j] - s[j];
  }
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N], a[N], b[N];
  int i, j, n = N - 4, m = N - 9, bad = 0;
  for (i = 0; i < N; i++) {
    a[i] = (i % 9) - 4.5, b[i] = 7;
    for (j = 0; j < N; j++)
      A[i][j] = (double) ((i * 5 + j * 2) % 13) - 6, B[i][j] = 3;
  }
  kernel(n, m, A, B, a, b);
  for (i = 0; i < N; i++) {
    bad += b[i] != (i < n ? a[n - 1 - i] * a[n - 1 - i] - a[i] * a[i] : 7);
    for (j = 0; j < N; j++) {
      double want = 3;
      if (i < n && j < m)
        want = (A[i][m - 1 - j] + i) * (A[i][m - 1 - j] + i);
      bad += B[i][j] != want;
    }
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

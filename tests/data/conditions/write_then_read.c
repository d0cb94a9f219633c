/* A conditional write to an array that later statements of the SCoP read: the
   reads take either the new value or the one from before the SCoP. */
#include <stdio.h>
#define N 200

static void kernel(int n, double A[N], double B[N], double C[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] < 0)
      A[i] = -2 * A[i];
  for (i = 0; i < n; i++)
    B[i] = A[i] + A[n - 1 - i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (A[j] > A[i])
        C[i][j] = A[j] - B[i];
#pragma endscop
}

static void plain(int n, double A[N], double B[N], double C[N][N])
{
  int i, j;
  for (i = 0; i < n; i++)
    if (A[i] < 0)
      A[i] = -2 * A[i];
  for (i = 0; i < n; i++)
    B[i] = A[i] + A[n - 1 - i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (A[j] > A[i])
        C[i][j] = A[j] - B[i];
}

int main(void)
{
  static double A[N], B[N], C[N][N], A2[N], B2[N], C2[N][N];
  int i, j, bad = 0, n = N - 9;
  for (i = 0; i < N; i++) {
    A[i] = A2[i] = ((i * 9173) % 1013 - 506) * 2.5e8;
    B[i] = B2[i] = 0;
    for (j = 0; j < N; j++)
      C[i][j] = C2[i][j] = -1.0e20 + i - j;
  }
  kernel(n, A, B, C);
  plain(n, A2, B2, C2);
  for (i = 0; i < N; i++) {
    bad += (A[i] != A2[i]) + (B[i] != B2[i]);
    for (j = 0; j < N; j++)
      bad += C[i][j] != C2[i][j];
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

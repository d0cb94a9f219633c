/* A filter on a value read: B[i] = A[i] only where A[i] > 0 (elsewhere B keeps its
   value from before the SCoP, so B must be copied to the device first), and an
   affine guard joined by '&&' (it stays in the domain: A[i - 1] is never read at
   i = 0). */
#include <stdio.h>
#define N 300

static void kernel(int n, double A[N], double B[N], double C[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] > 0)
      B[i] = A[i];
  for (i = 0; i < n; i++)
    if (i > 0 && A[i - 1] > A[i])
      C[i] = A[i - 1] - A[i];
#pragma endscop
}

static void plain(int n, double A[N], double B[N], double C[N])
{
  int i;
  for (i = 0; i < n; i++)
    if (A[i] > 0)
      B[i] = A[i];
  for (i = 0; i < n; i++)
    if (i > 0 && A[i - 1] > A[i])
      C[i] = A[i - 1] - A[i];
}

int main(void)
{
  static double A[N], B[N], C[N], B2[N], C2[N];
  int i, bad = 0, n = N - 13;
  for (i = 0; i < N; i++) {
    A[i] = ((i * 7919) % 2001 - 1000) * 1.0e6 + 0.25;
    B[i] = B2[i] = -1.5e9 + i;
    C[i] = C2[i] = 3.0e12 - i;
  }
  kernel(n, A, B, C);
  plain(n, A, B2, C2);
  for (i = 0; i < N; i++)
    bad += (B[i] != B2[i]) + (C[i] != C2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

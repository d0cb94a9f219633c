/* Scalars passed by value: one the body writes ('v = v * 2' changes only the
   callee's copy), one the call overwrites ('shift(A, A[0], n)' subtracts the old
   A[0] from every element): both are copied into a fresh local first.  And a
   non-void function called as a statement: its result is dropped. */
#include <stdio.h>
#define N 48

static void fill_doubled(double *dst, int m, double v)
{
  v = v * 2;
  for (int j = 0; j < m; j++)
    dst[j] = v;
}

static void shift(double *a, double v, int n)
{
  for (int k = 0; k < n; k++)
    a[k] = a[k] - v;
}

static int store(double *p, double v)
{
  *p = v * 3;
  return 1;
}

static void kernel(int n, double A[N], double B[N], double C[N], double D[N])
{
  int i;
  double w;
#pragma scop
  shift(A, A[0], n);
  for (i = 0; i < n; i++)
    store(&C[i], B[i]);
  w = B[1];
  fill_doubled(D, n - 1, w);
  D[n - 1] = w;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N], C[N], D[N];
  int i, n = N - 2, bad = 0;
  for (i = 0; i < N; i++)
    A[i] = i % 7 + 1, B[i] = i % 4, C[i] = -1, D[i] = -1;
  kernel(n, A, B, C, D);
  for (i = 0; i < N; i++) {
    bad += A[i] != (i < n ? i % 7 + 1 - 1 : i % 7 + 1);
    bad += C[i] != (i < n ? 3 * (i % 4) : -1);
    bad += D[i] != (i < n - 1 ? 2 * B[1] : i == n - 1 ? B[1] : -1);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

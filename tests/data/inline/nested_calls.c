/* A function calling another (inlined recursively, each level renamed), a pointer
   parameter used as p[k] and bound to a pointer, and a scalar of the SCoP's
   function passed by address ('set(&t, ...)'). */
#include <stdio.h>
#define N 50

static void set(double *p, double v)
{
  p[0] = v;
}

static void bump_row(double *row, int n)
{
  for (int k = 0; k < n; k++)
    set(&row[k], row[k] + 1);
}

static void kernel(int n, double A[N][N], double *x, double y[N])
{
  int i;
  double t;
#pragma scop
  for (i = 0; i < n; i++)
    bump_row(A[i], n);
  bump_row(x, n);
  set(&t, x[0] * 2);
  for (i = 0; i < n; i++)
    set(&y[i], t + x[i]);
#pragma endscop
}

int main(void)
{
  static double A[N][N], x[N], y[N];
  int i, j, n = N - 4, bad = 0;
  for (i = 0; i < N; i++) {
    x[i] = i % 3, y[i] = -1;
    for (j = 0; j < N; j++)
      A[i][j] = (i + j) % 6;
  }
  kernel(n, A, x, y);
  for (i = 0; i < N; i++) {
    double xi = i % 3 + (i < n);
    bad += x[i] != xi;
    bad += y[i] != (i < n ? 2 * 1 + xi : -1);
    for (j = 0; j < N; j++)
      bad += A[i][j] != (i + j) % 6 + (i < n && j < n);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

/* Row sums below the diagonal; the counters of the triangular nest are read after
   the SCoP.  j's loop runs last at i = n - 1, so j ends at n - 1; for n <= 0 the
   inner loop is never reached and j keeps the value it had before (-7). */
#include <stdio.h>
#define N 300

static long kernel(int n, double A[N][N], double x[N])
{
  int i = -5, j = -7;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++)
      x[i] += A[i][j];
#pragma endscop
  return (long) i * 100000 + j;
}

static long plain(int n, double A[N][N], double x[N])
{
  int i = -5, j = -7;
  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++)
      x[i] += A[i][j];
  return (long) i * 100000 + j;
}

int main(void)
{
  static double A[N][N], x[N], y[N];
  int sizes[] = {N - 13, 0, 1, 2, -4, 37};
  int i, j, k, bad = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (i * 31 + j * 17) % 101 - 50;
  for (k = 0; k < 6; k++) {
    for (i = 0; i < N; i++)
      x[i] = y[i] = i;
    long got = kernel(sizes[k], A, x), want = plain(sizes[k], A, y);
    bad += got != want;
    for (i = 0; i < N; i++)
      bad += x[i] != y[i];
  }
  bad += kernel(0, A, x) != -500000 - 7 + 500000;   /* i = 0, j = -7 */
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

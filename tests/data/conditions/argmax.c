/* A conditional scalar update: the running maximum m and its index, and the
   minimum.  Each 'if' reads the scalar its branch may write, so the loop carries
   a dependence through it and must stay sequential; the results leave the SCoP. */
#include <stdio.h>
#define N 500

static void kernel(int n, double A[N], double out[3], int where[1])
{
  int i, idx;
  double m, lo;
#pragma scop
  m = A[0];
  idx = 0;
  lo = A[0];
  for (i = 1; i < n; i++) {
    if (A[i] > m) {
      m = A[i];
      idx = i;
    }
    if (A[i] < lo)
      lo = A[i];
  }
#pragma endscop
  out[0] = m;
  out[1] = lo;
  where[0] = idx;
}

static void plain(int n, double A[N], double out[3], int where[1])
{
  int i, idx = 0;
  double m = A[0], lo = A[0];
  for (i = 1; i < n; i++) {
    if (A[i] > m) {
      m = A[i];
      idx = i;
    }
    if (A[i] < lo)
      lo = A[i];
  }
  out[0] = m;
  out[1] = lo;
  where[0] = idx;
}

int main(void)
{
  static double A[N];
  double out[3] = {0, 0, 0}, out2[3] = {0, 0, 0};
  int where[1] = {-1}, where2[1] = {-1};
  int i, bad = 0, n = N - 17;
  for (i = 0; i < N; i++)
    A[i] = ((i * 7507) % 3001 - 1500) * 1.0e9 + (i % 3) * 0.125;
  A[N - 20] = 9.9e13;            /* the maximum, inside the range */
  A[N - 3] = 1.0e14;             /* beyond n: never read */
  kernel(n, A, out, where);
  plain(n, A, out2, where2);
  bad += (out[0] != out2[0]) + (out[1] != out2[1]) + (where[0] != where2[0]);
  bad += where[0] != N - 20;
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

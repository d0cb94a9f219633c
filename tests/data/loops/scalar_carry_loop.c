/* A while loop reading a scalar it writes and that the next iteration of i reads
   again: t grows (t = 2t + 1) until it reaches A[i], and carries on to row i + 1,
   so the i loop must stay sequential; its final value is read after the SCoP.
   The second nest counts down with a long counter and a negative step. */
#include <stdio.h>
#define N 200

static long kernel(int n, double A[N], double B[N], long C[N])
{
  int i;
  long t, u;
#pragma scop
  t = 1;
  for (i = 0; i < n; i++) {
    while (t < A[i])
      t = 2 * t + 1;
    B[i] = t;
  }
  for (i = 0; i < n; i++) {
    C[i] = 0;
    for (u = (long) A[i]; u > 0; u -= 3)
      C[i] += u;
  }
#pragma endscop
  return t;
}

static long plain(int n, double A[N], double B[N], long C[N])
{
  int i;
  long t, u;
  t = 1;
  for (i = 0; i < n; i++) {
    while (t < A[i])
      t = 2 * t + 1;
    B[i] = t;
  }
  for (i = 0; i < n; i++) {
    C[i] = 0;
    for (u = (long) A[i]; u > 0; u -= 3)
      C[i] += u;
  }
  return t;
}

int main(void)
{
  static double A[N], B[N], B2[N];
  static long C[N], C2[N];
  int i, bad = 0, n = N - 1;
  long t, t2;
  for (i = 0; i < N; i++) {
    A[i] = (double) ((i * 104729) % 50000) - 1000.0;
    B[i] = B2[i] = 0;
    C[i] = C2[i] = 0;
  }
  t = kernel(n, A, B, C);
  t2 = plain(n, A, B2, C2);
  bad += t != t2;
  for (i = 0; i < N; i++)
    bad += (B[i] != B2[i]) + (C[i] != C2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

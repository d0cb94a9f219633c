/* Conditionally written scalars that die with the SCoP.  'last' keeps the last
   positive value seen: a read of it may take the value of any earlier iteration,
   so it is not private to a thread and the loop stays sequential.  't' is written
   unconditionally first in every iteration, then maybe overwritten: each thread
   may keep its own copy. */
#include <stdio.h>
#define N 300

static void kernel(int n, double A[N], double B[N], double C[N])
{
  int i;
  double last, t;
#pragma scop
  last = -1.0e30;
  for (i = 0; i < n; i++) {
    if (A[i] > 0)
      last = A[i];
    B[i] = last;
  }
  for (i = 0; i < n; i++) {
    t = 0;
    if (A[i] < -1.0e8)
      t = A[i] * A[i];
    C[i] = t - A[i];
  }
#pragma endscop
}

static void plain(int n, double A[N], double B[N], double C[N])
{
  int i;
  double last, t;
  last = -1.0e30;
  for (i = 0; i < n; i++) {
    if (A[i] > 0)
      last = A[i];
    B[i] = last;
  }
  for (i = 0; i < n; i++) {
    t = 0;
    if (A[i] < -1.0e8)
      t = A[i] * A[i];
    C[i] = t - A[i];
  }
}

int main(void)
{
  static double A[N], B[N], C[N], B2[N], C2[N];
  int i, bad = 0, n = N - 21;
  for (i = 0; i < N; i++) {
    A[i] = ((i * 6007) % 1201 - 700) * 1.0e6 - 0.75;
    B[i] = B2[i] = C[i] = C2[i] = 5;
  }
  kernel(n, A, B, C);
  plain(n, A, B2, C2);
  for (i = 0; i < N; i++)
    bad += (B[i] != B2[i]) + (C[i] != C2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

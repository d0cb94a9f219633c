/* A Jacobi stencil whose counters are read after the SCoP, and a SCoP inside a loop
   of the function that reads, at the top of each round, the counter its previous
   round left (the region runs again).  The 64-bit counter starts beyond 2^31. */
#include <stdio.h>
#define N 500

static long kernel(int tsteps, int n, double A[N], double B[N])
{
  int t = 99, i = 98, r;
  long l = 97, total = 0;
  for (r = 0; r < 3; r++) {
    total += (long) i * 7 + t * 3 + l % 1000;
#pragma scop
    for (t = 0; t < tsteps; t++) {
      for (i = 1; i < n - 1; i++)
        B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
      for (i = 1; i < n - 1; i++)
        A[i] = B[i];
    }
    for (l = 3000000000L; l < n + 3000000000L - r; l += 2)
      B[l - 3000000000L] += r;
#pragma endscop
    n -= 2;
  }
  return total + (long) i * 11 + t * 13 + l % 100000;
}

static long plain(int tsteps, int n, double A[N], double B[N])
{
  int t = 99, i = 98, r;
  long l = 97, total = 0;
  for (r = 0; r < 3; r++) {
    total += (long) i * 7 + t * 3 + l % 1000;
    for (t = 0; t < tsteps; t++) {
      for (i = 1; i < n - 1; i++)
        B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
      for (i = 1; i < n - 1; i++)
        A[i] = B[i];
    }
    for (l = 3000000000L; l < n + 3000000000L - r; l += 2)
      B[l - 3000000000L] += r;
    n -= 2;
  }
  return total + (long) i * 11 + t * 13 + l % 100000;
}

int main(void)
{
  static double A[N], B[N], A2[N], B2[N];
  int sizes[][2] = {{20, N}, {0, N}, {3, 2}, {0, 0}, {4, 3}, {1, 5}};
  int i, k, bad = 0;
  for (k = 0; k < 6; k++) {
    for (i = 0; i < N; i++) {
      A[i] = A2[i] = (i * 13) % 17;
      B[i] = B2[i] = 0;
    }
    bad += kernel(sizes[k][0], sizes[k][1], A, B) != plain(sizes[k][0], sizes[k][1], A2, B2);
    for (i = 0; i < N; i++)
      bad += (A[i] != A2[i]) + (B[i] != B2[i]);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

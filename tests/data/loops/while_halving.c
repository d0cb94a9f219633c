/* A while loop on a scalar it writes: each element is halved until it is at most
   one, counting the steps.  x and c are written in every iteration of i before
   they are read, so each thread keeps its own copies and the i loop is parallel.
   Elements at most 1 (and negative ones) run the loop zero times, large ones many
   times. */
#include <stdio.h>
#define N 300

static void kernel(int n, double A[N], double B[N], int steps[N])
{
  int i, c;
  double x;
#pragma scop
  for (i = 0; i < n; i++) {
    x = A[i];
    c = 0;
    while (x > 1.0) {
      x = x / 2;
      c++;
    }
    B[i] = x;
    steps[i] = c;
  }
#pragma endscop
}

static void plain(int n, double A[N], double B[N], int steps[N])
{
  int i, c;
  double x;
  for (i = 0; i < n; i++) {
    x = A[i];
    c = 0;
    while (x > 1.0) {
      x = x / 2;
      c++;
    }
    B[i] = x;
    steps[i] = c;
  }
}

int main(void)
{
  static double A[N], B[N], B2[N];
  static int steps[N], steps2[N];
  int i, bad = 0, n = N - 7;
  for (i = 0; i < N; i++) {
    A[i] = (i % 5 == 0) ? -3.0 * i : (double) ((i * 7919) % 100003) * 37.5;
    B[i] = B2[i] = -1;
    steps[i] = steps2[i] = -1;
  }
  kernel(n, A, B, steps);
  plain(n, A, B2, steps2);
  for (i = 0; i < N; i++)
    bad += (B[i] != B2[i]) + (steps[i] != steps2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

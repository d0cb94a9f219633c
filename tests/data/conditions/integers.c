/* Integer arrays with negative values: C's truncating '/' and '%' in the
   condition and the branches, compound assignments and '--'. */
#include <stdio.h>
#define N 400

static void kernel(int n, int X[N], int Y[N], long Z[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (X[i] % 3 == -1 || X[i] < -1000000)
      Y[i] += X[i] / 7;
    else
      Y[i]--;
  for (i = 0; i < n; i++)
    if (!(X[i] & 1) && X[i] / 4 != Y[i] % 5)
      Z[i] *= -3;
    else
      Z[i] -= (long) X[i] * 100000;
#pragma endscop
}

static void plain(int n, int X[N], int Y[N], long Z[N])
{
  int i;
  for (i = 0; i < n; i++)
    if (X[i] % 3 == -1 || X[i] < -1000000)
      Y[i] += X[i] / 7;
    else
      Y[i]--;
  for (i = 0; i < n; i++)
    if (!(X[i] & 1) && X[i] / 4 != Y[i] % 5)
      Z[i] *= -3;
    else
      Z[i] -= (long) X[i] * 100000;
}

int main(void)
{
  static int X[N], Y[N], Y2[N];
  static long Z[N], Z2[N];
  int i, bad = 0, n = N - 11;
  for (i = 0; i < N; i++) {
    X[i] = (i * 104729) % 4000001 - 2000000;
    Y[i] = Y2[i] = (i * 31) % 61 - 30;
    Z[i] = Z2[i] = (long) ((i * 7) % 13 - 6) * 1000000007L;
  }
  kernel(n, X, Y, Z);
  plain(n, X, Y2, Z2);
  for (i = 0; i < N; i++)
    bad += (Y[i] != Y2[i]) + (Z[i] != Z2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

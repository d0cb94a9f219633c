/* Search loops: the first position of x in each row (n when absent), as a while
   loop with a short circuit, and as a for loop left by break, whose counter is
   read after it.  Rows are independent: both run in parallel over i. */
#include <stdio.h>
#define N 120

static void kernel(int n, double x, double A[N][N], int pos[N], int first[N])
{
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    k = 0;
    while (k < n && A[i][k] != x)
      k++;
    pos[i] = k;
  }
  for (i = 0; i < n; i++) {
    for (k = 0; k < n; k++)
      if (A[i][k] < 0.0)
        break;
    first[i] = k;
  }
#pragma endscop
}

static void plain(int n, double x, double A[N][N], int pos[N], int first[N])
{
  int i, k;
  for (i = 0; i < n; i++) {
    k = 0;
    while (k < n && A[i][k] != x)
      k++;
    pos[i] = k;
  }
  for (i = 0; i < n; i++) {
    for (k = 0; k < n; k++)
      if (A[i][k] < 0.0)
        break;
    first[i] = k;
  }
}

int main(void)
{
  static double A[N][N];
  static int pos[N], pos2[N], first[N], first2[N];
  int i, j, bad = 0, n = N - 5;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      A[i][j] = ((i * 37 + j * 11) % 101) - (j > 2 * i ? 3.0 : 0.0);
    pos[i] = pos2[i] = first[i] = first2[i] = -9;
  }
  kernel(n, 42.0, A, pos, first);
  plain(n, 42.0, A, pos2, first2);
  for (i = 0; i < N; i++)
    bad += (pos[i] != pos2[i]) + (first[i] != first2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}

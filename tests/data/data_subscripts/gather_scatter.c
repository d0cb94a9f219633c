/* A gather inside a parallel loop (x[col[i][k]]: one thread per row) and a scatter
   through a permutation (z[perm[i]]: may-writes, so one thread runs that loop). */
#include <stdio.h>

void gather(int n, int m, const int perm[500], const int col[500][8], double x[500], double A[500][8], double y[500], double z[500])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    y[i] = 0.0;
    for (int k = 0; k < m; k++)
      y[i] += A[i][k] * x[col[i][k]];
  }
  for (int i = 0; i < n; i++)
    z[perm[i]] = y[i] * 2.0 + x[(i * i) % n];
#pragma endscop
}

int main(void)
{
  static int perm[500], col[500][8];
  static double x[500], A[500][8], y[500], z[500];
  for (int i = 0; i < 500; i++) {
    perm[i] = (i * 7 + 3) % 500; x[i] = i * 0.25 - 40;
    for (int k = 0; k < 8; k++) { col[i][k] = (i * 13 + k * 101) % 500; A[i][k] = (i + k) % 9 - 4.0; }
  }
  gather(500, 8, perm, col, x, A, y, z);
  for (int i = 0; i < 500; i++) printf("%.17g %.17g\n", y[i], z[i]);
  return 0;
}

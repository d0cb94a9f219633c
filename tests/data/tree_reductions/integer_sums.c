/* Integer sums for --parallel-reductions (tests/test_tree_reductions.py): a row
   sum with a statement after it, a column sum, triangular sums below and above the
   diagonal (bounds of k depending on i), two sums of narrow types in one loop.
   Unsigned and narrow elements wrap: any order of the terms gives the same value. */
void sums(int n, int m, int a[70][70], int b[70], int s[70], int t[70],
          unsigned u[70][70], unsigned c[70], unsigned d[70], unsigned e[70],
          unsigned char h[70], short q[70])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    s[i] = 0;
    for (int k = 0; k < m; k++)
      s[i] += a[i][k] * b[k];
    t[i] = s[i] * 2;
  }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++)
      c[j] += u[k][j];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < i; k++)
      d[i] -= u[i][k] * 3u;
  for (int j = 0; j < m; j++)
    for (int k = j + 1; k < n; k++)
      e[j] = u[k][j] * (unsigned)k + e[j];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++) {
      h[i] += (unsigned char)u[i][k];
      q[i] -= (short)u[k][i];
    }
#pragma endscop
}

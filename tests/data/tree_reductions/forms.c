/* Floating-point sums of several forms for --parallel-reductions
   (tests/test_tree_reductions.py): a kernel launched once a time step (its t fixed
   by the host), rows from 3, k from i, -=; two statements before the sum and three
   after it, reading and writing its cell; W = e + W on floats with k <= i; rows of
   the statement before and of the sum that differ (a grid over their union). */
void forms(int n, int m, int tsteps, double alpha, double A[70][70], double x[70],
           double s[70], double r[70], double v[70], double t[70], double w[70],
           float g[70], float F[70][70], double y[70], double z[70])
{
#pragma scop
  for (int ts = 0; ts < tsteps; ts++) {
    for (int i = 3; i < n; i++) {
      s[i] = s[i] * alpha;
      for (int k = i; k < n; k++)
        s[i] -= alpha * A[i][k] * x[k];
      r[n - 1 - i] = s[i] + 1.0;
    }
    for (int i = 3; i < n; i++)
      x[i] = r[n - 1 - i] * 0.5;
  }
  for (int i = 0; i < n; i++) {
    v[i] = x[i];
    v[i] = v[i] * 3.0;
    for (int k = 0; k < m; k++)
      v[i] += A[i][k] * x[k];
    t[i] = v[i];
    v[i] = v[i] - 1.0;
    w[i] = v[i] * t[i];
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k <= i; k++)
      g[i] = (float)(i - k) * F[k][i] + g[i];
  for (int i = 0; i < n + m; i++) {
    if (i < n)
      y[i] = 1.0;
    if (i >= 5 && i < m)
      for (int k = 0; k < n; k++)
        z[i] = A[k][i] + z[i];
  }
#pragma endscop
}

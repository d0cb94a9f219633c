void kernel(int n, double *p, double *x)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double *q = p + i;
    x[i] = q == x ? 0.0 : q[1];
  }
#pragma endscop
}

void kernel(int n, double *p)
{
  int k = 1;
  double *q = p + k;
  k = 2;
#pragma scop
  for (int i = 0; i < n; i++)
    q[i] = p[i] + 1.0;
#pragma endscop
}

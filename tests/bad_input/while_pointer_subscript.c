void kernel(int n, double *p, int count[1])
{
  int k;
#pragma scop
  k = 0;
  while (k < n && p[k] > 0.0)
    k++;
  count[0] = k;
#pragma endscop
}

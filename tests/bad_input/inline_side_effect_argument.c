static double sq(double v)
{
  return v * v;
}

void kernel(int n, double x[100], double y[100])
{
  int i, m = 0;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = sq(x[m++]);
#pragma endscop
}

static double scaled(double v, double f)
{
  return v * f;
}

void kernel(int n, double x[100], double y[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = scaled(x[i]);
#pragma endscop
}

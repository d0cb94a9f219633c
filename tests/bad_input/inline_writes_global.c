double total;

static void accumulate(double v)
{
  total += v;
}

void kernel(int n, double x[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    accumulate(x[i]);
#pragma endscop
}

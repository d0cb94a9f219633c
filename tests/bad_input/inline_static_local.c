static void number(double *p)
{
  static int calls;
  calls = calls + 1;
  p[0] = calls;
}

void kernel(int n, double x[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    number(&x[i]);
#pragma endscop
}

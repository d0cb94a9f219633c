void kernel(int n, double x[100])
{
  int i, t;
  for (t = 0; t < 10; t++) {
#pragma scop
    for (i = 0; i < n; i++)
      x[i] = x[i] + 1.0;
    break;
#pragma endscop
  }
}

void kernel(int n, double x[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    while (x[i] > 1.0) {
      x[i] = x[i] / 2;
      i++;
    }
#pragma endscop
}

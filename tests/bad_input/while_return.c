void kernel(int n, double x[100])
{
  int k;
#pragma scop
  k = 0;
  while (k < n) {
    if (x[k] < 0.0)
      return;
    x[k] = 1.0;
    k++;
  }
#pragma endscop
}

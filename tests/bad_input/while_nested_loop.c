void kernel(int n, double A[100][100], double x[100])
{
  int i;
  double err;
#pragma scop
  err = 1.0;
  while (err > 0.001) {
    err = 0.0;
    for (i = 0; i < n; i++) {
      x[i] = 0.5 * x[i];
      err += x[i];
    }
  }
#pragma endscop
}

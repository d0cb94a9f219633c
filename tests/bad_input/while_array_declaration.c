void kernel(int n, double x[100])
{
  int k;
#pragma scop
  for (k = 0; k < n && x[k] > 0.0; k++) {
    double t[2];
    t[0] = x[k];
    x[k] = t[0] * t[0];
  }
#pragma endscop
}

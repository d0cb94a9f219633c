#include <stdio.h>
#include <stdlib.h>
void kernel(int n, int m, double A[100][100], double x[100], double *p)
{
  int i, j;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    if (x[i] > 0.0) {
      double t[1] = {x[i]};
      x[i] = t[0];
    }
#pragma endscop
}

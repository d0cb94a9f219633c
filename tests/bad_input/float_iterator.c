#include <stdio.h>
#include <math.h>
void kernel(int n, int m, double A[100][100], double x[100], double *p)
{
  int i, j;
  double s;
  double t;
#pragma scop
  for (t = 0; t < n; t++)
    x[0] = t;
#pragma endscop
}

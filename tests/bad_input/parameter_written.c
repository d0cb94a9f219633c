#include <stdio.h>
#include <math.h>
void kernel(int n, int m, double A[100][100], double x[100], double *p)
{
  int i, j;
  double s;
#pragma scop
  for (i = 0; i < 10; i++)
    x[i + n] = 0.0;
  n = 3;
#pragma endscop
}

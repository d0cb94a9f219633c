#include <stdio.h>
#include <math.h>
void kernel(int n, int m, double A[100][100], double x[100], double *p)
{
  int i, j;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    switch (i) { case 0: x[i] = 0.0; default: x[i] += 1.0; }
#pragma endscop
}

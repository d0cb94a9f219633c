#include <stdio.h>
#include <math.h>
void kernel(int n, double x[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    x[i] = 0.0;
}

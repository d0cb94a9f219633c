#include <stdio.h>
void kernel(int n, double x[100])
{
  int k;
#pragma scop
  for (k = 0; k < n && x[k] > 0.0; k++)
    printf("%f\n", x[k]);
#pragma endscop
}

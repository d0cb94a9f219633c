#include <stdio.h>
void kernel(int n, double A[100][100])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    double t[100];
    for (j = 0; j < n; j++)
      t[j] = A[i][j];
    for (j = 0; j < n; j++)
      A[i][j] = t[n - 1 - j];
  }
#pragma endscop
  {
    double t[10];
    t[0] = A[0][0];
    printf("%f\n", t[0]);
  }
}
